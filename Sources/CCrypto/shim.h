// C entry point for OpenSSL's libcrypto (AES, HMAC-SHA-1 for formats libsodium does not cover; SHA-1 for git pack files).
#ifndef TRESOR_CCRYPTO_SHIM_H
#define TRESOR_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#endif
