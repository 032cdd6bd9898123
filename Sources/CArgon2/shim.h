// C entry point for libargon2 (Argon2d and Argon2id for other vaults' key derivation).
#ifndef TRESOR_CARGON2_SHIM_H
#define TRESOR_CARGON2_SHIM_H
#include <argon2.h>
#include <string.h>

// One call with every Argon2 input, so Swift never fills the context struct itself.
static inline int tresor_argon2(int type, uint32_t version, uint32_t t_cost, uint32_t m_cost_kib, uint32_t lanes,
                                const uint8_t *pwd, uint32_t pwdlen, const uint8_t *salt, uint32_t saltlen,
                                const uint8_t *secret, uint32_t secretlen, const uint8_t *ad, uint32_t adlen,
                                uint8_t *out, uint32_t outlen) {
    argon2_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.out = out; ctx.outlen = outlen;
    ctx.pwd = (uint8_t *)pwd; ctx.pwdlen = pwdlen;
    ctx.salt = (uint8_t *)salt; ctx.saltlen = saltlen;
    ctx.secret = (uint8_t *)secret; ctx.secretlen = secretlen;
    ctx.ad = (uint8_t *)ad; ctx.adlen = adlen;
    ctx.t_cost = t_cost; ctx.m_cost = m_cost_kib; ctx.lanes = lanes; ctx.threads = lanes;
    ctx.version = version;
    ctx.flags = ARGON2_DEFAULT_FLAGS;
    return argon2_ctx(&ctx, (argon2_type)type);
}
#endif
