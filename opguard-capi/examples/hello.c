/*
 * The smallest C program on opguard's C ABI: the library's version, a
 * kernel's canonical identity (a JSON entry point) and the direct matcher.
 * The top README's install line builds it against an installed prefix:
 *
 *   cc -o hello opguard-capi/examples/hello.c \
 *      $(pkg-config --cflags --libs opguard) -Wl,-rpath,"$(pkg-config --variable=libdir opguard)"
 *
 * Exit status: 0 when the library answered as documented, 1 otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "opguard.h"

int main(void) {
    const char *symbol = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)";
    if (opguard_abi_version() != OPGUARD_ABI_VERSION) {
        fprintf(stderr, "opguard.h is ABI %d, the library %u\n", OPGUARD_ABI_VERSION,
                (unsigned)opguard_abi_version());
        return 1;
    }
    printf("opguard %s\n", opguard_version());

    char *reply = opguard_kernel_canonicalize(
        "{\"symbol\": \"void (anonymous namespace)::clamp_position_kernel<long>(long*, int)\"}");
    int canonical = strstr(reply, "\"identity\":\"clamp_position_kernel<long>\"") != NULL;
    printf("%s\n", reply);
    opguard_string_free(reply);

    int match = opguard_kernel_match("clamp_position_kernel", symbol);
    printf("clamp_position_kernel matches: %s\n", match == 1 ? "yes" : "no");
    return canonical && match == 1 ? 0 : 1;
}
