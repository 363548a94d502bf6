/*
 * C test of the opguard C ABI: runs the kernel-name parity fixture and one
 * call of every other entry point, through include/opguard.h only.
 *
 *   opguard_test FIXTURES_DIR SCRATCH_DIR
 *
 * FIXTURES_DIR is the workspace's fixtures/ folder; SCRATCH_DIR an empty
 * folder the alignment calls write into.
 *
 * Built with -Wall -Wextra -Werror -pedantic against the shared and the static
 * library (opguard-capi/tests/c_abi.rs, bindings/test.sh). Prints one line per
 * fixture case, `ok|FAIL kernel_symbols.json::<id>`, and exits non-zero on any
 * failure. The fixture is read with the small JSON parser below (objects,
 * arrays, strings with escapes, numbers as text, literals); the library's
 * answers are read with the same parser.
 */
#include "opguard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Known failures, by case id: none. Add an id here (never edit the data). */
static const char *const KNOWN_FAILURES[] = {NULL};

/* ---- a tiny JSON parser ------------------------------------------------ */

typedef enum { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype t;
    char *s;             /* J_STR: decoded UTF-8; J_NUM: the number's text */
    size_t n;            /* J_ARR / J_OBJ: element count */
    struct jval *items;  /* J_ARR / J_OBJ: elements */
    char **keys;         /* J_OBJ: keys */
} jval;

typedef struct {
    const char *p;
    const char *err;
} jparser;

static void jfree(jval *v) {
    size_t i;
    free(v->s);
    for (i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static void skip_ws(jparser *j) {
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *out, unsigned cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses a string at j->p (on the opening quote) into a new buffer. */
static char *parse_string(jparser *j) {
    const char *p = j->p + 1;
    size_t cap = 16, len = 0;
    char *out = malloc(cap);
    if (!out) { j->err = "out of memory"; return NULL; }
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (len + 5 > cap) {
            char *grown;
            cap *= 2;
            grown = realloc(out, cap);
            if (!grown) { free(out); j->err = "out of memory"; return NULL; }
            out = grown;
        }
        if (c == '"') { p++; break; }
        if (c == '\0' || c < 0x20) { free(out); j->err = "bad string"; return NULL; }
        if (c != '\\') { out[len++] = (char)c; p++; continue; }
        p++;
        switch (*p) {
        case '"': out[len++] = '"'; p++; break;
        case '\\': out[len++] = '\\'; p++; break;
        case '/': out[len++] = '/'; p++; break;
        case 'b': out[len++] = '\b'; p++; break;
        case 'f': out[len++] = '\f'; p++; break;
        case 'n': out[len++] = '\n'; p++; break;
        case 'r': out[len++] = '\r'; p++; break;
        case 't': out[len++] = '\t'; p++; break;
        case 'u': {
            unsigned cp, lo;
            if (!hex4(p + 1, &cp)) { free(out); j->err = "bad \\u escape"; return NULL; }
            p += 5;
            if (cp >= 0xD800 && cp <= 0xDBFF && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, &lo) &&
                lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            len += put_utf8(out + len, cp);
            break;
        }
        default: free(out); j->err = "bad escape"; return NULL;
        }
    }
    out[len] = '\0';
    j->p = p;
    return out;
}

static int parse_value(jparser *j, jval *v, int depth);

static int push(jparser *j, jval *v, size_t *cap, char *key) {
    if (v->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        jval *items = realloc(v->items, ncap * sizeof *items);
        if (!items) { j->err = "out of memory"; return 0; }
        v->items = items;
        if (v->t == J_OBJ) {
            char **keys = realloc(v->keys, ncap * sizeof *keys);
            if (!keys) { j->err = "out of memory"; return 0; }
            v->keys = keys;
        }
        *cap = ncap;
    }
    memset(&v->items[v->n], 0, sizeof v->items[v->n]);
    if (v->t == J_OBJ) v->keys[v->n] = key;
    v->n++;
    return 1;
}

static int parse_container(jparser *j, jval *v, int depth, char close) {
    size_t cap = 0;
    j->p++;
    skip_ws(j);
    if (*j->p == close) { j->p++; return 1; }
    for (;;) {
        char *key = NULL;
        skip_ws(j);
        if (v->t == J_OBJ) {
            if (*j->p != '"') { j->err = "expected a key"; return 0; }
            key = parse_string(j);
            if (!key) return 0;
            skip_ws(j);
            if (*j->p != ':') { free(key); j->err = "expected ':'"; return 0; }
            j->p++;
        }
        if (!push(j, v, &cap, key)) { free(key); return 0; }
        if (!parse_value(j, &v->items[v->n - 1], depth + 1)) return 0;
        skip_ws(j);
        if (*j->p == ',') { j->p++; continue; }
        if (*j->p == close) { j->p++; return 1; }
        j->err = "expected ',' or a closing bracket";
        return 0;
    }
}

static int parse_value(jparser *j, jval *v, int depth) {
    memset(v, 0, sizeof *v);
    if (depth > 64) { j->err = "too deep"; return 0; }
    skip_ws(j);
    switch (*j->p) {
    case '{': v->t = J_OBJ; return parse_container(j, v, depth, '}');
    case '[': v->t = J_ARR; return parse_container(j, v, depth, ']');
    case '"': v->t = J_STR; v->s = parse_string(j); return v->s != NULL;
    case 't': if (strncmp(j->p, "true", 4) == 0) { v->t = J_TRUE; j->p += 4; return 1; } break;
    case 'f': if (strncmp(j->p, "false", 5) == 0) { v->t = J_FALSE; j->p += 5; return 1; } break;
    case 'n': if (strncmp(j->p, "null", 4) == 0) { v->t = J_NULL; j->p += 4; return 1; } break;
    default: {
        const char *start = j->p;
        size_t len;
        while (strchr("+-0123456789.eE", *j->p) && *j->p) j->p++;
        len = (size_t)(j->p - start);
        if (len == 0) break;
        v->t = J_NUM;
        v->s = malloc(len + 1);
        if (!v->s) { j->err = "out of memory"; return 0; }
        memcpy(v->s, start, len);
        v->s[len] = '\0';
        return 1;
    }
    }
    j->err = "unexpected character";
    return 0;
}

static int jparse(const char *text, jval *out) {
    jparser j;
    j.p = text;
    j.err = NULL;
    if (!parse_value(&j, out, 0)) {
        fprintf(stderr, "JSON parse error: %s near: %.40s\n", j.err ? j.err : "?", j.p);
        jfree(out);
        return 0;
    }
    skip_ws(&j);
    if (*j.p != '\0') { fprintf(stderr, "trailing data after JSON\n"); jfree(out); return 0; }
    return 1;
}

static const jval NULL_VALUE = {J_NULL, NULL, 0, NULL, NULL};

/* obj[key], or a JSON null when absent. */
static const jval *jget(const jval *obj, const char *key) {
    size_t i;
    if (obj->t != J_OBJ) return &NULL_VALUE;
    for (i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
    return &NULL_VALUE;
}

static int jeq(const jval *a, const jval *b) {
    size_t i;
    if (a->t != b->t) return 0;
    switch (a->t) {
    case J_NULL: case J_TRUE: case J_FALSE: return 1;
    case J_NUM: return strtod(a->s, NULL) == strtod(b->s, NULL);
    case J_STR: return strcmp(a->s, b->s) == 0;
    case J_ARR:
        if (a->n != b->n) return 0;
        for (i = 0; i < a->n; i++) if (!jeq(&a->items[i], &b->items[i])) return 0;
        return 1;
    case J_OBJ:
        if (a->n != b->n) return 0;
        for (i = 0; i < a->n; i++) if (!jeq(&a->items[i], jget(b, a->keys[i]))) return 0;
        return 1;
    }
    return 0;
}

/* Appends s to buf as a JSON string literal. */
static void json_quote(char **buf, size_t *len, size_t *cap, const char *s) {
    size_t need = *len + strlen(s) * 6 + 3;
    char *p;
    if (need > *cap) {
        char *grown = realloc(*buf, need * 2);
        if (!grown) { fprintf(stderr, "out of memory\n"); exit(2); }
        *buf = grown;
        *cap = need * 2;
    }
    p = *buf + *len;
    *p++ = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { *p++ = '\\'; *p++ = (char)c; }
        else if (c < 0x20) { sprintf(p, "\\u%04x", c); p += 6; }
        else *p++ = (char)c;
    }
    *p++ = '"';
    *p = '\0';
    *len = (size_t)(p - *buf);
}

static void append(char **buf, size_t *len, size_t *cap, const char *s) {
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        char *grown = realloc(*buf, (*len + n + 1) * 2);
        if (!grown) { fprintf(stderr, "out of memory\n"); exit(2); }
        *buf = grown;
        *cap = (*len + n + 1) * 2;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

/* ---- calling the library --------------------------------------------- */

static int failures = 0;

static void fail(const char *what, const char *detail) {
    failures++;
    printf("FAIL %s: %s\n", what, detail);
}

/* Parses and frees an envelope; 1 when it parsed. */
static int take(char *envelope, jval *out) {
    int ok;
    if (!envelope) { fprintf(stderr, "NULL envelope\n"); return 0; }
    ok = jparse(envelope, out);
    opguard_string_free(envelope);
    return ok;
}

/* Calls a JSON entry point; expects ok:true; returns the envelope (caller jfree). */
static int call_ok(const char *name, char *(*fn)(const char *), const char *request, jval *env) {
    char *raw = fn(request);
    if (!take(raw, env)) { fail(name, "envelope is not JSON"); return 0; }
    if (jget(env, "ok")->t != J_TRUE) {
        const jval *code = jget(jget(env, "error"), "code");
        const jval *msg = jget(jget(env, "error"), "message");
        printf("  %s: %s\n", code->s ? code->s : "?", msg->s ? msg->s : "?");
        fail(name, "expected ok:true");
        jfree(env);
        return 0;
    }
    return 1;
}

/* Calls a JSON entry point; expects an error with `code`. */
static void call_err(const char *name, char *(*fn)(const char *), const char *request,
                     const char *code) {
    jval env;
    const jval *got;
    if (!take(fn(request), &env)) { fail(name, "envelope is not JSON"); return; }
    got = jget(jget(&env, "error"), "code");
    if (jget(&env, "ok")->t != J_FALSE || got->t != J_STR || strcmp(got->s, code) != 0)
        fail(name, code);
    else
        printf("ok %s -> %s\n", name, code);
    jfree(&env);
}

static int known_failure(const char *id) {
    size_t i;
    for (i = 0; KNOWN_FAILURES[i]; i++)
        if (strcmp(KNOWN_FAILURES[i], id) == 0) return 1;
    return 0;
}

static void report_case(const char *id, int passed, const char *detail) {
    char name[512];
    snprintf(name, sizeof name, "kernel_symbols.json::%s", id);
    if (known_failure(id)) {
        if (passed) fail(name, "listed as a known failure but passes: remove it from KNOWN_FAILURES");
        else printf("known-failure %s: %s\n", name, detail);
    } else if (passed) {
        printf("ok %s\n", name);
    } else {
        fail(name, detail);
    }
}

static const char *const SYMBOL_FIELDS[] = {"base", "qualification", "template", "annotation",
                                            "memory_op", "mangling", "degenerate", "truncated",
                                            "short_name", "identity", NULL};

static void symbol_case(const jval *c) {
    const char *id = jget(c, "id")->s;
    char *req = NULL;
    size_t len = 0, cap = 0;
    jval env;
    const jval *got, *expected = jget(c, "expected");
    int passed = 1;
    size_t i;
    static char detail[256];
    detail[0] = '\0';
    append(&req, &len, &cap, "{\"symbol\":");
    json_quote(&req, &len, &cap, jget(c, "symbol")->s);
    append(&req, &len, &cap, "}");
    if (!call_ok(id, opguard_kernel_canonicalize, req, &env)) { free(req); return; }
    free(req);
    got = jget(&env, "value");
    for (i = 0; SYMBOL_FIELDS[i]; i++) {
        if (!jeq(jget(got, SYMBOL_FIELDS[i]), jget(expected, SYMBOL_FIELDS[i]))) {
            passed = 0;
            snprintf(detail, sizeof detail, "field `%s` differs", SYMBOL_FIELDS[i]);
            break;
        }
    }
    if (passed && jget(c, "demangled")->t != J_NULL &&
        !jeq(jget(got, "demangled"), jget(c, "demangled"))) {
        passed = 0;
        snprintf(detail, sizeof detail, "field `demangled` differs");
    }
    report_case(id, passed, detail);
    jfree(&env);
}

static void verdict_case(const jval *c) {
    const char *id = jget(c, "id")->s;
    const char *want = jget(c, "want")->s, *got = jget(c, "got")->s;
    const jval *expected = jget(c, "expected");
    int expect_match = jget(expected, "is_match")->t == J_TRUE;
    int forward = opguard_kernel_match(want, got);
    int backward = opguard_kernel_match(got, want);
    char *req = NULL;
    size_t len = 0, cap = 0;
    jval env;
    const char *detail = "";
    int passed = 1;
    if (forward != expect_match) { passed = 0; detail = "opguard_kernel_match disagrees"; }
    else if (backward != forward) { passed = 0; detail = "opguard_kernel_match is not symmetric"; }
    append(&req, &len, &cap, "{\"want\":");
    json_quote(&req, &len, &cap, want);
    append(&req, &len, &cap, ",\"got\":");
    json_quote(&req, &len, &cap, got);
    append(&req, &len, &cap, "}");
    if (call_ok(id, opguard_kernel_match_json, req, &env)) {
        const jval *v = jget(&env, "value");
        if (passed && !(jeq(jget(v, "is_match"), jget(expected, "is_match")) &&
                        jeq(jget(v, "reason"), jget(expected, "reason")) &&
                        jeq(jget(v, "basis"), jget(expected, "basis")))) {
            passed = 0;
            detail = "opguard_kernel_match_json verdict differs";
        }
        jfree(&env);
    } else {
        passed = 0;
        detail = "opguard_kernel_match_json failed";
    }
    free(req);
    report_case(id, passed, detail);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    long size;
    char *buf;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) { free(buf); buf = NULL; }
    if (buf) buf[size] = '\0';
    fclose(f);
    return buf;
}

static void run_fixture(const char *path) {
    char *text = read_file(path);
    jval fx;
    const jval *cases;
    size_t i, symbols = 0, verdicts = 0;
    if (!text) { fail(path, "cannot read the fixture"); return; }
    if (!jparse(text, &fx)) { free(text); fail(path, "fixture is not JSON"); return; }
    free(text);
    cases = jget(&fx, "symbol_cases");
    for (i = 0; i < cases->n; i++, symbols++) symbol_case(&cases->items[i]);
    cases = jget(&fx, "verdict_cases");
    for (i = 0; i < cases->n; i++, verdicts++) verdict_case(&cases->items[i]);
    if (symbols == 0 || verdicts == 0 ||
        strtod(jget(&fx, "symbol_case_count")->s, NULL) != (double)symbols ||
        strtod(jget(&fx, "verdict_case_count")->s, NULL) != (double)verdicts)
        fail(path, "case counts disagree with the fixture's declared counts");
    printf("%s: %lu symbol cases, %lu verdict cases\n", path, (unsigned long)symbols,
           (unsigned long)verdicts);
    jfree(&fx);
}

/* ---- one call of every other entry point ----------------------------- */

static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,"
    "\"ts\":100,\"dur\":5,\"args\":{\"correlation\":7,\"External id\":3}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm_kernel<float>(float*)\",\"pid\":0,"
    "\"tid\":7,\"ts\":110,\"dur\":20,\"args\":{\"correlation\":7,\"device\":0,\"stream\":7}}"
    "],\"deviceProperties\":[]}";

static void escaped_request(char **buf, size_t *len, size_t *cap, const char *prefix,
                            const char *text, const char *suffix) {
    append(buf, len, cap, prefix);
    json_quote(buf, len, cap, text);
    append(buf, len, cap, suffix);
}

static void check_str(const char *name, const jval *v, const char *expected) {
    if (v->t != J_STR || strcmp(v->s, expected) != 0) fail(name, expected);
    else printf("ok %s = %s\n", name, expected);
}

static void every_entry_point(void) {
    jval env;
    char *req = NULL;
    size_t len = 0, cap = 0;
    const char *version = opguard_version();
    const char *status;
    char bad_utf8[] = {'{', '"', 's', 'y', 'm', 'b', 'o', 'l', '"', ':', '"', (char)0xff, '"', '}', 0};

    if (!version || !*version) fail("opguard_version", "empty");
    else printf("ok opguard_version = %s\n", version);
    if (opguard_abi_version() != OPGUARD_ABI_VERSION) fail("opguard_abi_version", "mismatch");
    else printf("ok opguard_abi_version = %u\n", (unsigned)opguard_abi_version());
    opguard_string_free(NULL);

    status = opguard_status_name(OPGUARD_STATUS_NULL_ARGUMENT);
    if (!status || strcmp(status, "capi.null_argument") != 0) fail("opguard_status_name", "-1");
    if (opguard_status_name(OPGUARD_STATUS_INVALID_UTF8) == NULL ||
        opguard_status_name(OPGUARD_STATUS_INTERNAL_PANIC) == NULL ||
        opguard_status_name(0) != NULL || opguard_status_name(1) != NULL)
        fail("opguard_status_name", "table");

    if (opguard_kernel_match(NULL, "x") != OPGUARD_STATUS_NULL_ARGUMENT)
        fail("opguard_kernel_match(NULL)", "expected OPGUARD_STATUS_NULL_ARGUMENT");
    if (opguard_kernel_match("clamp_position_kernel", bad_utf8 + 11) != OPGUARD_STATUS_INVALID_UTF8)
        fail("opguard_kernel_match(bad UTF-8)", "expected OPGUARD_STATUS_INVALID_UTF8");
    call_err("opguard_kernel_canonicalize(NULL)", opguard_kernel_canonicalize, NULL,
             "capi.null_argument");
    call_err("opguard_kernel_canonicalize(bad UTF-8)", opguard_kernel_canonicalize, bad_utf8,
             "capi.invalid_utf8");
    call_err("opguard_kernel_canonicalize(not JSON)", opguard_kernel_canonicalize, "{",
             "document.json_syntax");
    call_err("opguard_kernel_canonicalize(wrong field)", opguard_kernel_canonicalize,
             "{\"sym\":\"x\"}", "document.unknown_field");

    if (call_ok("opguard_kernel_short_name", opguard_kernel_short_name,
                "{\"symbol\":\"void (anonymous namespace)::clamp_position_kernel<long>(long*)\"}",
                &env)) {
        check_str("opguard_kernel_short_name", jget(jget(&env, "value"), "short_name"),
                  "clamp_position_kernel");
        jfree(&env);
    }
    if (call_ok("opguard_kernel_canonicalize_batch", opguard_kernel_canonicalize_batch,
                "{\"symbols\":[\"void gemm_kernel<float>(float*)\",\"main_kernel[prefill]\"]}",
                &env)) {
        const jval *v = jget(&env, "value");
        if (v->t != J_ARR || v->n != 2) fail("opguard_kernel_canonicalize_batch", "2 results");
        else {
            check_str("opguard_kernel_canonicalize_batch[0]", jget(&v->items[0], "identity"),
                      "gemm_kernel<float>");
            check_str("opguard_kernel_canonicalize_batch[1]", jget(&v->items[1], "base"),
                      "main_kernel");
        }
        jfree(&env);
    }
    if (call_ok("opguard_kernel_match_batch", opguard_kernel_match_batch,
                "{\"pairs\":[[\"gemm_kernel\",\"void gemm_kernel<float>(float*)\"],"
                "[\"void\",\"void\"]]}",
                &env)) {
        const jval *v = jget(&env, "value");
        if (v->t != J_ARR || v->n != 2 || jget(&v->items[0], "is_match")->t != J_TRUE)
            fail("opguard_kernel_match_batch", "first pair matches");
        else
            check_str("opguard_kernel_match_batch[1]", jget(&v->items[1], "reason"),
                      "degenerate_token");
        jfree(&env);
    }

    escaped_request(&req, &len, &cap, "{\"text\":", TRACE, "}");
    if (call_ok("opguard_trace_info", opguard_trace_info, req, &env)) {
        const jval *v = jget(&env, "value");
        if (strcmp(jget(v, "events")->s ? jget(v, "events")->s : "", "2") != 0 ||
            jget(v, "sha256")->t != J_STR || strlen(jget(v, "sha256")->s) != 64)
            fail("opguard_trace_info", "2 events and a sha256");
        else
            printf("ok opguard_trace_info\n");
        jfree(&env);
    }
    call_err("opguard_trace_info(missing file)", opguard_trace_info,
             "{\"path\":\"/nonexistent/opguard/trace.json\"}", "trace.io");
    {
        /* The stream itself is held to the referee under AddressSanitizer by
         * tests/c/opguard_table_stream.c; here: an error leaves no stream. */
        struct ArrowArrayStream stream;
        char *e = opguard_table_stream(
            "{\"path\":\"/nonexistent/opguard/trace.json\",\"table\":\"device\"}", &stream);
        if (strstr(e, "\"code\":\"trace.io\"") == NULL || stream.release != NULL)
            fail("opguard_table_stream(missing file)", e);
        else
            printf("ok opguard_table_stream(missing file)\n");
        opguard_string_free(e);
        e = opguard_table_streams(
            "{\"path\":\"/nonexistent/opguard/trace.json\",\"tables\":[\"device\"]}", &stream, 1);
        if (strstr(e, "\"code\":\"trace.io\"") == NULL || stream.release != NULL)
            fail("opguard_table_streams(missing file)", e);
        else
            printf("ok opguard_table_streams(missing file)\n");
        opguard_string_free(e);
    }
    len = 0;
    escaped_request(&req, &len, &cap, "{\"artifacts\":[{\"text\":", TRACE,
                    ",\"provider\":\"kineto_cuda\",\"stage\":\"decode\"}]}");
    if (call_ok("opguard_trace_launch_regions", opguard_trace_launch_regions, req, &env)) {
        const jval *r = &jget(jget(&env, "value"), "regions")->items[0];
        const jval *k = jget(r, "kernel_count"), *c = jget(r, "correlated_kernel_count");
        if (jget(jget(&env, "value"), "regions")->n != 1 || !k->s || strcmp(k->s, "1") != 0 ||
            !c->s || strcmp(c->s, "1") != 0)
            fail("opguard_trace_launch_regions", "one kernel, correlated");
        else
            printf("ok opguard_trace_launch_regions\n");
        jfree(&env);
    }
    free(req);

#define CAPTURE(label, axis, hint)                                                        \
    "{\"format\":\"opguard.census/capture-v1\",\"label\":\"" label "\",\"step_axis\":\"" axis \
    "\",\"step_hint\":" hint ",\"ops\":[{\"name\":\"aten.mm.default\",\"shapes\":[[\"" axis  \
    "\",64],[64,192],[\"" axis "\",192]]}],\"guards\":[],\"replacements\":{},"               \
    "\"host_resolutions\":[]}"
    if (call_ok("opguard_census", opguard_census, "{\"capture\":" CAPTURE("w2", "s0", "2") "}",
                &env)) {
        const jval *gemm = NULL, *families = jget(jget(jget(&env, "value"), "census"), "families");
        size_t i;
        for (i = 0; i < families->n; i++)
            if (strcmp(jget(&families->items[i], "family")->s, "gemm") == 0)
                gemm = &families->items[i];
        if (!gemm || strcmp(jget(gemm, "ops")->s, "1") != 0) fail("opguard_census", "one gemm");
        else printf("ok opguard_census\n");
        jfree(&env);
    }
    if (call_ok("opguard_census_compare_widths", opguard_census_compare_widths,
                "{\"first\":" CAPTURE("w2", "s0", "2") ",\"second\":" CAPTURE("w8", "s9", "8") "}",
                &env)) {
        if (jget(jget(&env, "value"), "free_symbol")->t != J_TRUE)
            fail("opguard_census_compare_widths", "free_symbol");
        else
            printf("ok opguard_census_compare_widths\n");
        jfree(&env);
    }
    call_err("opguard_census_compare_widths(same width)", opguard_census_compare_widths,
             "{\"first\":" CAPTURE("a", "s0", "2") ",\"second\":" CAPTURE("b", "s1", "2") "}",
             "census.same_width");
#undef CAPTURE
}

/* The file-based entry points on the workspace's fixtures: export, apply an
 * empty map to the export, profile and seam verdict over the select capture,
 * correlate seed 003's trials. */
static void alignment_and_scaling(const char *fixtures, const char *scratch) {
    char *req = NULL;
    size_t len = 0, cap = 0;
    char path[4096], view[4096], map_path[4096];
    jval env;
    FILE *f;

    snprintf(path, sizeof path, "%s/align/two_runs.records.jsonl", fixtures);
    snprintf(view, sizeof view, "%s/view.json", scratch);
    escaped_request(&req, &len, &cap, "{\"records\":", path, ",");
    escaped_request(&req, &len, &cap, "\"output\":", view, "}");
    if (call_ok("opguard_export_build", opguard_export_build, req, &env)) {
        const jval *v = jget(&env, "value");
        const jval *sha = jget(v, "output_sha256");
        if (!jget(v, "pairs")->s || strcmp(jget(v, "pairs")->s, "4") != 0 || sha->t != J_STR) {
            fail("opguard_export_build", "4 pairs and a sha256");
        } else {
            printf("ok opguard_export_build\n");
            snprintf(map_path, sizeof map_path, "%s/map.json", scratch);
            f = fopen(map_path, "wb");
            if (!f) {
                fail("opguard_alignment_map_apply", "cannot write the map");
            } else {
                fprintf(f, "{\"version\":1,\"artifact_sha256\":\"%s\",\"reviews\":[]}", sha->s);
                fclose(f);
            }
        }
        jfree(&env);
        /* The output exists now: a second export must refuse to overwrite it. */
        call_err("opguard_export_build(output exists)", opguard_export_build, req,
                 "align.output_exists");
        len = 0;
        escaped_request(&req, &len, &cap, "{\"protocol_version\":1,\"artifact\":", view, ",");
        escaped_request(&req, &len, &cap, "\"alignment_map\":", map_path, ",");
        snprintf(path, sizeof path, "%s/reviewed.json", scratch);
        escaped_request(&req, &len, &cap, "\"output\":", path, "}");
        if (call_ok("opguard_alignment_map_apply", opguard_alignment_map_apply, req, &env)) {
            check_str("opguard_alignment_map_apply", jget(jget(&env, "value"), "verdict"),
                      "not_evaluated");
            jfree(&env);
        }
    }
    call_err("opguard_alignment_map_apply(protocol 2)", opguard_alignment_map_apply,
             "{\"protocol_version\":2,\"artifact\":\"a\",\"alignment_map\":\"m\","
             "\"output\":\"o\"}",
             "align.unsupported_protocol_version");

    len = 0;
    snprintf(path, sizeof path, "%s/select/attention.pid-4242.json.gz", fixtures);
    escaped_request(&req, &len, &cap, "{\"top\":3,\"path\":", path, "}");
    if (call_ok("opguard_profile_top_n", opguard_profile_top_n, req, &env)) {
        const jval *rows = jget(jget(&env, "value"), "rows");
        if (rows->t != J_ARR || rows->n < 1 || jget(&rows->items[0], "entity_kind")->t != J_STR)
            fail("opguard_profile_top_n", "rows with an entity_kind");
        else
            printf("ok opguard_profile_top_n\n");
        jfree(&env);
    }
    len = 0;
    snprintf(path, sizeof path, "%s/select/0720_inner_launcher.request.json", fixtures);
    escaped_request(&req, &len, &cap, "{\"request_path\":", path, "}");
    if (call_ok("opguard_seam_verdict", opguard_seam_verdict, req, &env)) {
        const jval *v = jget(&env, "value");
        if (jget(v, "ok")->t != J_TRUE || jget(v, "deepest_verified")->t != J_TRUE)
            fail("opguard_seam_verdict", "the inner launcher is certified");
        else
            printf("ok opguard_seam_verdict\n");
        jfree(&env);
    }

    len = 0;
    snprintf(path, sizeof path, "%s/scaling/seed003/trials.json", fixtures);
    escaped_request(&req, &len, &cap, "{\"trials_path\":", path, "}");
    if (call_ok("opguard_scaling_correlate", opguard_scaling_correlate, req, &env)) {
        const jval *hot = jget(jget(&env, "value"), "hotspots");
        if (hot->t != J_ARR || hot->n < 1) fail("opguard_scaling_correlate", "a hotspot");
        else check_str("opguard_scaling_correlate", jget(&hot->items[0], "name"),
                       "reverse_scan");
        jfree(&env);
    }
    free(req);
}

/* The map and reduce of a whole job on two real rank traces (the shared
 * data beside the checkout): each rank's summary is passed on as the text
 * the library returned, and the merge gives the same bytes in either order. */
static void whole_job(const char *fixtures) {
    char *req = NULL, *merged[2] = {NULL, NULL};
    size_t len = 0, cap = 0;
    char path[4096];
    const char *prefix = "{\"ok\":true,\"value\":";
    char *values[2] = {NULL, NULL};
    int i, order;
    jval env;
    FILE *f;

    for (i = 0; i < 2; i++) {
        snprintf(path, sizeof path,
                 "%s/../../shared/data/traces/hta/trace_filter__sampled_rank-%d.json.gz",
                 fixtures, i);
        f = fopen(path, "rb");
        if (!f) {
            printf("ok opguard_job_summary (skipped: no shared data at %s)\n", path);
            printf("ok opguard_job_merge (skipped)\n");
            free(values[0]);
            free(req);
            return;
        }
        fclose(f);
        len = 0;
        escaped_request(&req, &len, &cap, "{\"top\":3,\"path\":", path, "}");
        {
            char *raw = opguard_job_summary(req);
            size_t n = strlen(raw), p = strlen(prefix);
            if (strncmp(raw, prefix, p) != 0) {
                fail("opguard_job_summary", raw);
            } else {
                values[i] = malloc(n - p);
                memcpy(values[i], raw + p, n - p - 1);
                values[i][n - p - 1] = '\0';
                printf("ok opguard_job_summary rank %d\n", i);
            }
            opguard_string_free(raw);
        }
    }
    if (!values[0] || !values[1]) {
        free(values[0]);
        free(values[1]);
        free(req);
        return;
    }
    for (order = 0; order < 2; order++) {
        len = 0;
        append(&req, &len, &cap, "{\"summaries\":[");
        append(&req, &len, &cap, values[order]);
        append(&req, &len, &cap, ",");
        append(&req, &len, &cap, values[1 - order]);
        append(&req, &len, &cap, "]}");
        merged[order] = opguard_job_merge(req);
    }
    if (strcmp(merged[0], merged[1]) != 0)
        fail("opguard_job_merge", "the two orders give different bytes");
    else
        printf("ok opguard_job_merge is commutative\n");
    if (take(merged[0], &env)) {
        const jval *v = jget(&env, "value");
        const jval *ranks = jget(v, "ranks");
        const jval *frames = jget(v, "frames");
        if (ranks->t != J_ARR || ranks->n != 2 || frames->t != J_ARR || frames->n < 1 ||
            jget(&frames->items[0], "slowest_rank")->t != J_NUM)
            fail("opguard_job_merge", "two ranks and frames with a slowest rank");
        else
            check_str("opguard_job_merge", jget(v, "format"), "opguard.job/v1");
        jfree(&env);
    } else {
        fail("opguard_job_merge", "envelope is not JSON");
    }
    opguard_string_free(merged[1]);
    call_err("opguard_job_merge(wrong format)", opguard_job_merge,
             "{\"summaries\":[{\"format\":\"x\"}]}", "job.wrong_format");
    free(values[0]);
    free(values[1]);
    free(req);
}

/* Two real runs of one program (HTA's trace_compare pair): two steps a
 * side can never reach an FDR of 0.05, so the gate is undecided and every
 * entity says why; a side naming nothing is compare.no_runs. */
static void compare_runs(const char *fixtures) {
    char *req = NULL;
    size_t len = 0, cap = 0;
    char base[4096], test[4096];
    jval env;
    FILE *f;

    call_err("opguard_compare(no runs)", opguard_compare, "{\"baseline\":[],\"candidate\":[]}",
             "compare.no_runs");
    snprintf(base, sizeof base,
             "%s/../../shared/data/traces/hta/trace_compare__base__base.json.gz", fixtures);
    snprintf(test, sizeof test,
             "%s/../../shared/data/traces/hta/trace_compare__test__test.json.gz", fixtures);
    f = fopen(base, "rb");
    if (!f) {
        printf("ok opguard_compare (skipped: no shared data at %s)\n", base);
        return;
    }
    fclose(f);
    escaped_request(&req, &len, &cap, "{\"baseline\":[", base, "],");
    escaped_request(&req, &len, &cap, "\"candidate\":[", test, "]}");
    if (take(opguard_compare(req), &env)) {
        const jval *v = jget(&env, "value");
        const jval *gate = jget(v, "gate");
        check_str("opguard_compare", jget(v, "format"), "opguard.compare/v1");
        check_str("opguard_compare", jget(v, "sample_unit"), "step");
        check_str("opguard_compare", jget(gate, "status"), "undecided");
        if (jget(v, "entities")->t != J_ARR || jget(v, "entities")->n < 10)
            fail("opguard_compare", "the pair's entities");
        jfree(&env);
    } else {
        fail("opguard_compare", "envelope is not JSON");
    }
    free(req);
}

int main(int argc, char **argv) {
    char fixture[4096];
    if (argc != 3) {
        fprintf(stderr, "usage: %s FIXTURES_DIR SCRATCH_DIR\n", argv[0]);
        return 64;
    }
    if (opguard_abi_version() != OPGUARD_ABI_VERSION) {
        fprintf(stderr, "header is for ABI %d, library is ABI %u\n", OPGUARD_ABI_VERSION,
                (unsigned)opguard_abi_version());
        return 1;
    }
    snprintf(fixture, sizeof fixture, "%s/kernel-name/kernel_symbols.json", argv[1]);
    run_fixture(fixture);
    every_entry_point();
    alignment_and_scaling(argv[1], argv[2]);
    whole_job(argv[1]);
    compare_runs(argv[1]);
    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
