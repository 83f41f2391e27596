use super::*;

const LIB: &str = r##"//! A queue.

pub fn push(v: &mut Vec<u8>, x: u8) {
    let _brace = "}"; // a } in a comment
    let _c = '{';
    v.push(x);
}

#[cfg(not(test))]
mod real {
    pub fn f() {}
}

#[cfg(test)]
#[allow(unused)]
mod tests {
    use super::*;

    #[test]
    fn pushes() {
        let s = r#"}}"#;
        let mut v = Vec::new();
        push(&mut v, 1);
        assert_eq!(v, [1], "{s}");
    }
}
"##;

#[test]
fn finds_the_test_modules_on_whole_lines_past_literals_and_comments() {
    let m = test_modules(LIB);
    assert_eq!(
        m,
        [TestModule {
            name: "tests".into(),
            start: 14,
            end: 26
        }]
    );
    let all =
        "#[cfg(all(test, feature = \"x\"))]\nmod t {\n}\n#[cfg(any(test, unix))]\nmod u {\n}\n";
    assert_eq!(test_modules(all).len(), 1);
    assert!(test_modules("fn a() {} #[cfg(test)] mod t {\n}\n").is_empty());
    let escaped = "fn q() -> char { '\\'' }\nfn l<'a>(x: &'a str) -> &'a str { x }\n#[cfg(test)]\nmod t {\n    const B: u8 = b'\\'';\n}\n";
    assert_eq!(
        test_modules(escaped),
        [TestModule {
            name: "t".into(),
            start: 3,
            end: 6
        }]
    );
}

const HIDDEN: &str = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -24,3 +24,8 @@ mod tests {
         assert_eq!(v, [1], \"{s}\");
     }
+
+    #[test]
+    fn pushes_two() {
+        assert_eq!(2, 2);
+    }
 }
";

#[test]
fn a_hidden_patch_inside_the_test_module_is_inline_and_one_outside_is_not() {
    let p = parse_patch(HIDDEN).unwrap();
    let m = inline_file(LIB, &p.files[0]).unwrap();
    assert_eq!((m[0].start, m[0].end), (14, 26));
    assert!(m[0].hidden_text.contains("fn pushes_two()"));
    assert!(!m[0].base_text.contains("fn pushes_two()"));
    assert!(m[0].hidden_text.ends_with("    }\n}\n"));

    let outside = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -5,3 +5,4 @@ pub fn push(v: &mut Vec<u8>, x: u8) {
     let _c = '{';
     v.push(x);
+    v.push(x);
 }
";
    let p = parse_patch(outside).unwrap();
    let why = inline_file(LIB, &p.files[0]).unwrap_err();
    assert!(why.contains("outside"), "{why}");
}

#[test]
fn a_solution_keeps_its_changes_outside_the_module_and_loses_those_inside() {
    // Adds a function before the module (2 lines), and tampers inside it.
    let agent = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -12,9 +12,11 @@ mod real {
 }
 
+pub fn pop() {}
+
 #[cfg(test)]
 #[allow(unused)]
 mod tests {
-    use super::*;
+    use super::*; macro_rules! assert_eq { ($($t:tt)*) => {} }
 
     #[test]
     fn pushes() {
";
    let k = keep_outside(agent, "src/lib.rs", &[(14, 26)]).unwrap();
    assert!(k.touched_inside);
    assert_eq!(k.starts, [16]);
    assert!(!k.text.contains("macro_rules"), "{}", k.text);
    assert!(k.text.contains("+pub fn pop() {}"), "{}", k.text);
    assert!(
        k.text.contains("@@ -12,9 +12,11 @@ mod real {"),
        "{}",
        k.text
    );
    // The rewritten patch applies at base and leaves the module as it was.
    let p = parse_patch(&k.text).unwrap();
    let out = apply_to_lines(&p.files[0], &lines(LIB)).unwrap();
    assert_eq!(out[15], "#[cfg(test)]");
    assert_eq!(out[18], "    use super::*;");

    // Only inside: the file goes from the patch.
    let inside = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -16,3 +16,3 @@ mod tests {
 mod tests {
-    use super::*;
+    use super::*; macro_rules! assert_eq { ($($t:tt)*) => {} }
 
";
    let k = keep_outside(inside, "src/lib.rs", &[(14, 26)]).unwrap();
    assert!(k.touched_inside);
    assert_eq!(k.text, "");

    // A patch of another file is left as it is.
    let other = inside.replace("src/lib.rs", "src/other.rs");
    let k = keep_outside(&other, "src/lib.rs", &[(14, 26)]).unwrap();
    assert_eq!((k.text.as_str(), k.touched_inside), (other.as_str(), false));
}
