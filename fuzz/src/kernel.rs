//! Kernel names: the canonicalizer, short names, the matcher and the memo.

/// Splits the input into two strings at the first `0xFF` byte.
fn two_strings(data: &[u8]) -> (String, String) {
    match data.iter().position(|&b| b == 0xFF) {
        Some(p) => (
            String::from_utf8_lossy(&data[..p]).into_owned(),
            String::from_utf8_lossy(&data[p + 1..]).into_owned(),
        ),
        None => (String::from_utf8_lossy(data).into_owned(), String::new()),
    }
}

/// Canonicalization, short names and the matcher on two arbitrary strings.
pub fn kernel_name(data: &[u8]) {
    use opguard_kernel_name::{canonicalize, is_match, matches, short_name, SHORT_NAME_LIMIT};
    let (a, b) = two_strings(data);
    for s in [&a, &b] {
        let c = canonicalize(s);
        let identity = c.identity();
        assert_eq!(identity, canonicalize(s).identity(), "not deterministic");
        let _ = (c.qualified_identity(), c.strict_identity(), c.base());
        let _ = (
            c.annotation(),
            c.demangled(),
            c.is_truncated(),
            c.is_degenerate(),
        );
        let _ = c.template().args_normalized();
        let _ = serde_json::to_string(&c);
        let short = short_name(s);
        if c.memory_op().is_none() {
            assert!(
                short.chars().count() <= SHORT_NAME_LIMIT,
                "short name {short:?} longer than the limit"
            );
        }
        if let Ok(strict) = c.strict_identity() {
            assert!(
                !c.is_degenerate(),
                "degenerate name got a strict identity {strict}"
            );
        }
    }
    let v = matches(&a, &b);
    assert_eq!(v.is_match, is_match(&a, &b));
    assert_eq!(v.is_match, v.reason.is_none(), "{v:?}");
    let same = matches(&a, &a);
    assert_eq!(same.is_match, same.reason.is_none(), "{same:?}");
    // The Canonical-level matcher is the same matcher.
    assert_eq!(
        canonicalize(&a).matches(&canonicalize(&b)).is_match,
        v.is_match
    );
}

/// The kernel-name memo against the plain canonicalizer. The input is four
/// parameter bytes (a budget of `16 * u16` bytes, a field mask), operations
/// up to the first `0xFE` byte, then up to eight symbols split at `0xFF`.
/// Each operation byte picks a call (`canonicalize`, `matches`,
/// `write_json`, `write_json_bytes`) and one or two symbols. Every answer
/// equals the plain function's (`canonicalize`, `matches`, `serde_json` over
/// `Canonical::project`), a symbol that is not UTF-8 writes nothing, and the
/// memo never holds more than its budget.
pub fn kernel_memo(data: &[u8]) {
    use opguard_kernel_name::{canonicalize, matches, Field, Memo};
    let Some((params, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let budget = usize::from(u16::from_le_bytes([params[0], params[1]])) * 16;
    let mask = u16::from_le_bytes([params[2], params[3]]);
    let (ops, symbols) = match rest.iter().position(|&b| b == 0xFE) {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, &[][..]),
    };
    let raw: Vec<&[u8]> = symbols.split(|&b| b == 0xFF).take(8).collect();
    let text: Vec<String> = raw
        .iter()
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    let picked: Vec<Field> = Field::ALL
        .into_iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, f)| f)
        .collect();
    let projections: [&[Field]; 3] = [&picked, &Field::ALL, &Field::COMPACT];
    let mut memo = Memo::with_budget(budget);
    let mut written = 0u64;
    for &op in ops.iter().take(256) {
        let (a, b) = (
            usize::from(op & 7) % raw.len(),
            usize::from(op >> 3 & 7) % raw.len(),
        );
        let (sa, sb) = (text[a].as_str(), text[b].as_str());
        match op >> 6 {
            0 => {
                let want = serde_json::to_string(&canonicalize(sa)).expect("serializes");
                let got =
                    serde_json::to_string(memo.canonicalize(sa).as_ref()).expect("serializes");
                assert_eq!(got, want, "memo canonical form of {sa:?}");
            }
            1 => {
                let want = matches(sa, sb);
                let got = memo.matches(sa, sb);
                assert_eq!(got, want, "memo verdict of {sa:?} against {sb:?}");
            }
            2 => {
                let fields = projections[b % 3];
                let want = serde_json::to_string(&canonicalize(sa).project(fields)).expect("json");
                let mut out = String::from("prefix:");
                memo.write_json(sa, fields, &mut out);
                assert_eq!(out.strip_prefix("prefix:"), Some(want.as_str()), "{sa:?}");
                written += 1;
            }
            _ => {
                let fields = projections[b % 3];
                let mut out = String::from("prefix:");
                match std::str::from_utf8(raw[a]) {
                    Ok(s) => {
                        let want =
                            serde_json::to_string(&canonicalize(s).project(fields)).expect("json");
                        memo.write_json_bytes(raw[a], fields, &mut out)
                            .expect("UTF-8 symbol");
                        assert_eq!(out.strip_prefix("prefix:"), Some(want.as_str()), "{s:?}");
                        written += 1;
                    }
                    Err(_) => {
                        assert!(memo.write_json_bytes(raw[a], fields, &mut out).is_err());
                        assert_eq!(out, "prefix:", "a refused symbol wrote something");
                    }
                }
            }
        }
        assert!(
            memo.bytes() <= memo.budget(),
            "memo holds {} bytes over its budget {}",
            memo.bytes(),
            memo.budget()
        );
        let stats = memo.stats();
        assert_eq!(
            stats.answer_hits + stats.answer_misses,
            written,
            "{stats:?}"
        );
    }
}
