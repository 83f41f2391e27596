//! JUnit 4 canaries for maven's surefire (parser `surefire`, a command that runs `mvn`): two
//! `@org.junit.Test` methods written into the hidden `*Test.java` class, right before the
//! `}` that closes it (the class named like the file, its closing brace at the indentation
//! of its `class` line). Every name is fully qualified (`org.junit.Test`,
//! `org.junit.Assert.assertEquals`), so the canaries need no import and cannot clash with
//! the file's own; the assertion is JUnit's own, so an `Assert` made a no-op (a rigged
//! `RunListener`, a `Rule` swallowing failures) fails the failing canary's purpose and is
//! caught. Surefire reports a method as `<package>.<Class>::<method>`.
//!
//! A class the hidden patch shows run by another runner (`@RunWith`: `Parameterized` names
//! each method `m[0]`, `Enclosed` runs only the nested classes) or written for JUnit 5
//! (`org.junit.jupiter`, whose engine does not run JUnit 4 methods) gets none.

use super::args::Words;

/// Whether `path` is a test class surefire runs by default (`**/Test*.java`,
/// `**/*Test.java`, `**/*Tests.java`, `**/*TestCase.java`) in maven's test sources
/// (`src/test/java/`).
pub fn carries(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some(stem) = name.strip_suffix(".java") else {
        return false;
    };
    let in_tests = path.starts_with("src/test/java/") || path.contains("/src/test/java/");
    in_tests
        && (stem.starts_with("Test")
            || stem.ends_with("Test")
            || stem.ends_with("Tests")
            || stem.ends_with("TestCase"))
}

/// Why the hidden file whose patch shows `text` cannot carry JUnit 4 canaries, if it
/// cannot.
pub fn unfit(text: &str) -> Option<&'static str> {
    if text.contains("org.junit.jupiter") {
        return Some(
            "is a JUnit 5 class (`org.junit.jupiter`): taskc writes JUnit 4 canaries only",
        );
    }
    if text.contains("@RunWith") {
        return Some(
            "is run by a JUnit runner of its own (`@RunWith`), which may not run canary methods as plain tests",
        );
    }
    None
}

/// Why `command` would not run every canary: it selects tests (`-Dtest=`), or stops after
/// a number of failures (`-Dsurefire.skipAfterFailureCount`).
pub fn selection(command: &str) -> Option<String> {
    let w = Words::of(command);
    if w.has(&["-Dtest", "-Dit.test"]) {
        return Some(Words::selects("`-Dtest`"));
    }
    if w.has(&["-Dsurefire.skipAfterFailureCount"]) {
        return Some(Words::stops("`-Dsurefire.skipAfterFailureCount`"));
    }
    None
}

/// Whether `w` runs maven (`mvn`, `./mvnw`, `/usr/bin/mvn`).
fn is_mvn(w: &str) -> bool {
    let base = w.rsplit('/').next().unwrap_or(w);
    base == "mvn" || base == "mvnw"
}

/// `command` made to go on after a module whose tests fail (the failing canary fails every
/// module it is in: maven would stop there and the modules after it would never test):
/// `-Dmaven.test.failure.ignore=true` after each `mvn`; `None` when already there.
pub fn runs_everything(command: &str) -> Option<String> {
    if command.contains("maven.test.failure.ignore") || command.contains("testFailureIgnore") {
        return None;
    }
    let mut out = String::new();
    let mut changed = false;
    let mut rest = command;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        out.push_str(&rest[..start]);
        let word_end = rest[start..]
            .find(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
            .map_or(rest.len(), |e| start + e.max(1));
        let word = &rest[start..word_end];
        out.push_str(word);
        if is_mvn(word) {
            out.push_str(" -Dmaven.test.failure.ignore=true");
            changed = true;
        }
        rest = &rest[word_end..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The method a line of a Java class declares (`public void readsSeconds() {`), if any.
pub fn method(line: &str) -> Option<String> {
    let mut l = line.trim_start();
    for m in [
        "public ",
        "protected ",
        "private ",
        "static ",
        "final ",
        "synchronized ",
    ] {
        l = l.strip_prefix(m).map(str::trim_start).unwrap_or(l);
    }
    let rest = l.strip_prefix("void ")?.trim_start();
    let name = super::names::ident(rest);
    rest[name.len()..]
        .trim_start()
        .starts_with('(')
        .then_some(name)
        .filter(|n| !n.is_empty())
}

/// `words` as a JUnit 4 method name: lower camel case (`readsSecondsEdge`).
pub fn style(words: &[String]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        let mut c = w.chars();
        if let Some(f) = c.next() {
            if i == 0 {
                out.push(f.to_ascii_lowercase());
            } else {
                out.push(f.to_ascii_uppercase());
            }
            out.push_str(c.as_str());
        }
    }
    out
}

/// One pair of test methods: `pass` compares `a` with itself, `fail` with `b`;
/// `fail_first` writes the failing one first.
pub fn pair(pass: &str, fail: &str, (a, b): (u32, u32), fail_first: bool) -> String {
    let m = |name: &str, x: u32| {
        format!(
            "\n    @org.junit.Test\n    public void {name}() {{\n        org.junit.Assert.assertEquals({a}L, {x}L);\n    }}\n"
        )
    };
    if fail_first {
        format!("{}{}", m(fail, b), m(pass, a))
    } else {
        format!("{}{}", m(pass, a), m(fail, b))
    }
}

/// Prints its input with the lines of file `A` before the `}` closing the class named `C`
/// (the first line at the indentation of its `class` line that is `}` alone); fails,
/// printing nothing, when there is none.
const JUNIT_AWK: &str = r#"{ l[NR] = $0 } END { c = 0; for (i = 1; i <= NR && !c; i++) { x = " " l[i] " "; if (x ~ ("[ \t]class[ \t]+" ENVIRON["C"] "[^A-Za-z0-9_$]")) c = i } at = 0; if (c) { match(l[c], /^[ \t]*/); ind = substr(l[c], 1, RLENGTH); for (i = c + 1; i <= NR && !at; i++) { x = l[i]; sub(/[ \t\r]+$/, "", x); if (x == ind "}") at = i } } if (!at) exit 1; for (i = 1; i <= NR; i++) { if (i == at) while ((getline y < ENVIRON["A"]) > 0) print y; print l[i] } }"#;

/// The script line writing the canaries of blob `src` into the class of `target` (both shell
/// words; `file`: its path, whose stem names the class); when the class is not found the
/// file stays as it was.
pub fn script(target: &str, file: &str, src: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let class = name.strip_suffix(".java").unwrap_or(name);
    format!(
        "C={class} A={src} awk {awk} {target} > {src}.out && cat {src}.out > {target}\n",
        class = super::quote(class),
        awk = super::quote(JUNIT_AWK),
    )
}

/// Whether the results show that the class of `file` ran: a test whose id's class part
/// (before `::`) is the file's class, bare or after a package.
pub fn file_ran(
    file: &str,
    tests: &std::collections::BTreeMap<String, crate::parsers::Outcome>,
) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    let class = name.strip_suffix(".java").unwrap_or(name);
    tests.iter().any(|(id, o)| {
        *o != crate::parsers::Outcome::Error
            && id
                .split_once("::")
                .is_some_and(|(c, _)| c == class || c.ends_with(&format!(".{class}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_classes_in_maven_test_sources() {
        assert!(carries("src/test/java/com/example/DelayTest.java"));
        assert!(carries("core/src/test/java/TestDelay.java"));
        assert!(carries("src/test/java/a/DelayTests.java"));
        assert!(!carries("src/test/java/a/DelayHelper.java"));
        assert!(!carries("src/main/java/a/DelayTest.java"));
        assert!(!carries("src/test/resources/DelayTest.java.txt"));
    }

    #[test]
    fn methods_of_a_class() {
        assert_eq!(
            method("    public void readsSeconds() {").as_deref(),
            Some("readsSeconds")
        );
        assert_eq!(
            method("  void helper (int x) throws Exception {").as_deref(),
            Some("helper")
        );
        assert_eq!(method("    public int count() {"), None);
        assert_eq!(method("    void = 3;"), None);
    }

    #[test]
    fn selection_and_fail_fast() {
        assert!(selection("mvn -B test").is_none());
        assert!(selection("mvn -B -Dtest=DelayTest test").is_some());
        assert!(selection("mvn -Dsurefire.skipAfterFailureCount=1 test").is_some());
        assert_eq!(
            runs_everything("cd core && mvn -B -o test; cat x").as_deref(),
            Some("cd core && mvn -Dmaven.test.failure.ignore=true -B -o test; cat x")
        );
        assert_eq!(
            runs_everything("./mvnw -q test").as_deref(),
            Some("./mvnw -Dmaven.test.failure.ignore=true -q test")
        );
        assert_eq!(
            runs_everything("mvn -Dmaven.test.failure.ignore=true test"),
            None
        );
        assert_eq!(runs_everything("make test"), None);
    }

    #[test]
    fn unfit_classes() {
        assert!(unfit("import org.junit.jupiter.api.Test;").is_some());
        assert!(unfit("@RunWith(Parameterized.class)").is_some());
        assert!(unfit("import org.junit.Test;").is_none());
    }
}
