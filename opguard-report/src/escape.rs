//! Every string a trace, a request or a file name supplies is hostile input:
//! it reaches the page only through [`escape`].

use std::borrow::Cow;

/// Escapes text for HTML element content and quoted attribute values
/// (`&`, `<`, `>`, `"`, `'`), so a kernel named `<script>` renders as text.
pub(crate) fn escape(s: &str) -> Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A file path as escaped HTML with a line-break opportunity (`<wbr>`)
/// after each `/`: in a narrow column a path wraps between its folders,
/// never inside a name.
pub fn escape_path(s: &str) -> String {
    escape(s).replace('/', "/<wbr>")
}

#[cfg(test)]
mod tests {
    use super::{escape, escape_path};

    #[test]
    fn a_path_may_wrap_only_after_its_slashes() {
        assert_eq!(
            escape_path("runs/base/rank<0>.json.gz"),
            "runs/<wbr>base/<wbr>rank&lt;0&gt;.json.gz"
        );
    }

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(
            escape(r#"<script>alert("x&y's")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;y&#39;s&quot;)&lt;/script&gt;"
        );
        assert_eq!(
            escape("void gemm<float, 128>(float*)"),
            "void gemm&lt;float, 128&gt;(float*)"
        );
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            escape("ampere_sgemm_128x64_nn"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
