/*
 * Per-call cost of opguard's C ABI from C: the direct opguard_kernel_match,
 * the JSON opguard_kernel_match_json (request already encoded), and
 * opguard_abi_version (an empty call: the floor of any call).
 *
 *   binding_overhead FIXTURE.json [SECONDS]
 *
 * Built and run by benches/peers/binding_overhead.sh. Prints wall and CPU
 * nanoseconds per call (the machine may be shared; CPU time is the steadier).
 */
#define _POSIX_C_SOURCE 199309L
#include "opguard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char WANT[] = "clamp_position_kernel";
static const char GOT[] = "void (anonymous namespace)::clamp_position_kernel<long>(long*, int)";

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef int (*bench_fn)(void);

static int call_match(void) { return opguard_kernel_match(WANT, GOT); }
static int call_abi(void) { return (int)opguard_abi_version(); }
static int call_json(void) {
    char *r = opguard_kernel_match_json(
        "{\"want\":\"clamp_position_kernel\",\"got\":\"void (anonymous namespace)::"
        "clamp_position_kernel<long>(long*, int)\"}");
    int ok = r != NULL && strstr(r, "\"is_match\":true") != NULL;
    opguard_string_free(r);
    return ok;
}

static void run(const char *name, bench_fn fn, double seconds) {
    long long calls = 0;
    volatile int sink = 0;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), w1;
    do {
        int i;
        for (i = 0; i < 1000; i++) sink += fn();
        calls += 1000;
        w1 = now(CLOCK_MONOTONIC);
    } while (w1 - w0 < seconds);
    {
        double c1 = now(CLOCK_PROCESS_CPUTIME_ID);
        printf("c      %-28s %10.1f ns/call wall %10.1f ns/call cpu (%lld calls)\n", name,
               (w1 - w0) * 1e9 / (double)calls, (c1 - c0) * 1e9 / (double)calls, calls);
    }
    (void)sink;
}

int main(int argc, char **argv) {
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    (void)argv;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIXTURE.json [SECONDS]\n", argv[0]);
        return 64;
    }
    if (opguard_kernel_match(WANT, GOT) != 1) {
        fprintf(stderr, "unexpected verdict\n");
        return 1;
    }
    run("opguard_abi_version", call_abi, seconds);
    run("opguard_kernel_match", call_match, seconds);
    run("opguard_kernel_match_json", call_json, seconds);
    return 0;
}
