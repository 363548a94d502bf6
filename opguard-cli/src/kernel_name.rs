//! `opguard kernel-name`: canonical identity, short name and the strict
//! matcher of `opguard-kernel-name`, for symbols on the command line or one
//! per line on stdin.

use std::io::BufRead;

use opguard_kernel_name::{
    canonicalize, short_name, Basis, Canonical, Field, Mangling, Memo, Reason, TemplateKind,
    Verdict,
};
use serde::Serialize;

use crate::cli::{CanonicalArgs, MatchArgs, SymbolArgs};
use crate::error::CliError;
use crate::exit;
use crate::out::Out;
use crate::style::{facts as facts_block, Style};

/// Reads stdin line by line, handing each line's bytes (without its `\n` or
/// `\r\n`; UTF-8 is checked by `each`, see [`utf8_line`]) and its 1-based
/// number to `each`. Every line is an input, empty ones
/// included, so output line N always answers input line N.
///
/// `out` is flushed whenever the lines read so far are answered and the next
/// read may wait for input: a program on the other end of a pipe sees each
/// answer before it must send the next symbol, while a file or a full pipe is
/// answered in large writes (a flush per line was most of the batch's time).
fn for_each_line(
    out: &mut Out,
    mut each: impl FnMut(&[u8], u64, &mut Out) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut stdin = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    // The start of a line whose end is not read yet.
    let mut partial: Vec<u8> = Vec::new();
    let mut number = 0u64;
    loop {
        let chunk = stdin
            .fill_buf()
            .map_err(|e| CliError::new("io", format!("cannot read stdin: {e}")).in_input("-"))?;
        if chunk.is_empty() {
            if !partial.is_empty() {
                number += 1;
                answer_line(&partial, number, out, &mut each)?;
            }
            return out.flush();
        }
        let mut rest = chunk;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            number += 1;
            if partial.is_empty() {
                answer_line(&rest[..end], number, out, &mut each)?;
            } else {
                partial.extend_from_slice(&rest[..end]);
                answer_line(&partial, number, out, &mut each)?;
                partial.clear();
            }
            rest = &rest[end + 1..];
        }
        partial.extend_from_slice(rest);
        let read = chunk.len();
        stdin.consume(read);
        out.flush()?;
    }
}

/// One stdin line (without its `\n`): drops a `\r` before it.
fn answer_line(
    mut bytes: &[u8],
    number: u64,
    out: &mut Out,
    each: &mut impl FnMut(&[u8], u64, &mut Out) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if let [head @ .., b'\r'] = bytes {
        bytes = head;
    }
    each(bytes, number, out)
}

/// Stdin line `number` as text.
fn utf8_line(bytes: &[u8], number: u64) -> Result<&str, CliError> {
    std::str::from_utf8(bytes).map_err(|e| invalid_utf8(e, number))
}

fn invalid_utf8(e: std::str::Utf8Error, number: u64) -> CliError {
    let mut err = CliError::new(
        "invalid_utf8",
        format!(
            "stdin is not UTF-8 (invalid byte at column {})",
            e.valid_up_to() + 1
        ),
    )
    .in_input("-");
    err.line = Some(number);
    err
}

/// Answers each symbol of `args` (arguments, or stdin lines) with `emit`,
/// which is told whether the symbol is the first.
fn for_each_symbol(
    args: &SymbolArgs,
    mut emit: impl FnMut(&str, bool, &mut Out) -> Result<(), CliError>,
) -> Result<u8, CliError> {
    let mut out = Out::new();
    let mut first = true;
    if args.stdin {
        for_each_line(&mut out, |line, number, out| {
            emit(utf8_line(line, number)?, std::mem::take(&mut first), out)
        })?;
    } else {
        for symbol in &args.symbols {
            emit(symbol, std::mem::take(&mut first), &mut out)?;
        }
    }
    out.flush()?;
    Ok(exit::OK)
}

/// The `--json` fields of `canonical`: compact unless `--full` or `--fields`.
fn canonical_fields(args: &CanonicalArgs) -> Result<Vec<Field>, CliError> {
    if args.full {
        return Ok(Field::ALL.to_vec());
    }
    if args.fields.is_empty() {
        return Ok(Field::COMPACT.to_vec());
    }
    Field::list(args.fields.iter().map(String::as_str))
        .map_err(|e| CliError::usage(format!("--fields: {e}")))
}

/// Runs `opguard kernel-name canonical`.
pub fn run_canonical(args: &CanonicalArgs) -> Result<u8, CliError> {
    let style = Style::for_stdout();
    let fields = canonical_fields(args)?;
    let json = args.symbols.output.json;
    let mut memo = Memo::new();
    let mut line = String::new();
    if json && args.symbols.stdin {
        // The per-event stream: a repeated line is looked up as bytes, its
        // UTF-8 known from when it was kept (the check was a tenth of the time).
        let mut out = Out::new();
        for_each_line(&mut out, |bytes, number, out| {
            line.clear();
            memo.write_json_bytes(bytes, &fields, &mut line)
                .map_err(|e| invalid_utf8(e, number))?;
            line.push('\n');
            out.text(&line)
        })?;
        out.flush()?;
        return Ok(exit::OK);
    }
    for_each_symbol(&args.symbols, |symbol, first, out| {
        if json {
            line.clear();
            memo.write_json(symbol, &fields, &mut line);
            line.push('\n');
            return out.text(&line);
        }
        if !first {
            out.text("\n")?;
        }
        out.text(&human_canonical(&memo.canonicalize(symbol), style))
    })
}

fn human_canonical(c: &Canonical<'_>, style: Style) -> String {
    let t = c.template();
    let template = match t.kind() {
        TemplateKind::None => "none".to_owned(),
        kind => {
            let kind = kind.as_str();
            let mut args: Vec<String> = t.args().map(|a| a.to_string()).collect();
            if t.kind() == TemplateKind::Elided {
                args.push(match t.partial() {
                    Some(p) => format!("{p}..."),
                    None => "...".to_owned(),
                });
            }
            format!("{kind} <{}>", args.join(", "))
        }
    };
    let mut flags = Vec::new();
    if c.is_degenerate() {
        flags.push("degenerate (never certifies a match)");
    }
    if c.is_truncated() {
        flags.push("possibly display-truncated");
    }
    let mut facts: Vec<(&str, String)> = vec![
        ("symbol", c.symbol().to_owned()),
        ("identity", c.identity()),
        ("base", c.base().to_owned()),
        ("short name", c.short_name().into_owned()),
        ("template", template),
    ];
    if let Some(q) = c.qualification() {
        facts.push(("qualification", q.to_string()));
    }
    if let Some(a) = c.annotation() {
        facts.push(("annotation", a.into_owned()));
    }
    if let Some(m) = c.memory_op() {
        let direction = m.direction.as_deref().unwrap_or("(none)");
        facts.push(("memory op", format!("{} {direction}", m.kind.as_str())));
    }
    if let Some(d) = c.demangled() {
        facts.push(("demangled", d.to_owned()));
    }
    if c.mangling() == Mangling::Opaque {
        facts.push(("mangling", "opaque (could not demangle)".to_owned()));
    }
    if !flags.is_empty() {
        facts.push(("flags", flags.join(", ")));
    }
    facts_block(&facts, style, "")
}

#[derive(Serialize)]
struct ShortLine<'a> {
    symbol: &'a str,
    short_name: &'a str,
}

/// Runs `opguard kernel-name short`.
pub fn run_short(args: &SymbolArgs) -> Result<u8, CliError> {
    for_each_symbol(args, |symbol, _, out| {
        let short = short_name(symbol);
        if args.output.json {
            return out.json_line(&ShortLine {
                symbol,
                short_name: &short,
            });
        }
        out.text(&short)?;
        out.text("\n")
    })
}

/// One `--json` line of `kernel-name match`.
#[derive(Serialize)]
struct MatchLine<'a> {
    want: &'a str,
    got: &'a str,
    #[serde(rename = "match")]
    is_match: bool,
    reason: Option<Reason>,
    basis: Option<Basis>,
}

fn emit_match(
    memo: &mut Memo,
    out: &mut Out,
    json: bool,
    style: Style,
    want: &str,
    got: &str,
) -> Result<Verdict, CliError> {
    let v = memo.matches(want, got);
    if json {
        out.json_line(&MatchLine {
            want,
            got,
            is_match: v.is_match,
            reason: v.reason,
            basis: v.basis,
        })?;
    } else {
        let head = match (v.is_match, v.basis, v.reason) {
            (true, Some(b), _) => style.bold(&format!("match ({})", b.code())),
            (true, None, _) => style.bold("match"),
            (false, _, Some(r)) => style.error(&format!("no match ({})", r.code())),
            (false, _, None) => style.error("no match"),
        };
        out.text(&format!(
            "{head}\n  want  {}\n  got   {}\n",
            canonicalize(want).identity(),
            canonicalize(got).identity()
        ))?;
    }
    Ok(v)
}

/// Runs `opguard kernel-name match`: 0 when every pair matches, 1 when one
/// does not.
pub fn run_match(args: &MatchArgs) -> Result<u8, CliError> {
    let mut out = Out::new();
    let style = Style::for_stdout();
    let json = args.output.json;
    let mut all = true;
    let mut memo = Memo::new();
    if args.stdin {
        for_each_line(&mut out, |line, number, out| {
            let line = utf8_line(line, number)?;
            let mut fields = line.split('\t');
            let (Some(want), Some(got), None) = (fields.next(), fields.next(), fields.next())
            else {
                let mut e = CliError::new(
                    "bad_line",
                    format!(
                        "the line has {} tab(s); expected want<TAB>got, exactly one tab",
                        line.matches('\t').count()
                    ),
                )
                .in_input("-");
                e.line = Some(number);
                return Err(e);
            };
            all &= emit_match(&mut memo, out, json, style, want, got)?.is_match;
            Ok(())
        })?;
    } else {
        // clap guarantees both without --stdin.
        let (Some(want), Some(got)) = (&args.want, &args.got) else {
            return Err(CliError::usage("WANT and GOT are required without --stdin"));
        };
        all = emit_match(&mut memo, &mut out, json, style, want, got)?.is_match;
    }
    out.flush()?;
    Ok(if all { exit::OK } else { exit::NEGATIVE })
}
