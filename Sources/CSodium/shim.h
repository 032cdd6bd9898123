// C entry point for libsodium; included by the CSodium module map.
#ifndef TRESOR_CSODIUM_SHIM_H
#define TRESOR_CSODIUM_SHIM_H
#include <sodium.h>
#endif
