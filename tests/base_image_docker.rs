//! The base image, with the real binary and the real engine: its content id (not its name)
//! enters the image ids, so rebuilding it under the same tag rebuilds what stands on it; a
//! site's CA certificates (`[images] ca_certificates`, `taskc image bootstrap --ca-cert`)
//! land in the image's trust store.
//!
//! Everything a test creates is tagged `curator-real-test/…` or built on such a tag, and is
//! removed at the end (only those images: the engine is shared).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::{docker_or_skip, root};

use std::path::Path;
use std::process::{Command, Output};

fn docker(args: &[&str]) -> Output {
    Command::new("docker").args(args).output().unwrap()
}

fn docker_ok(args: &[&str]) -> String {
    let o = docker(args);
    assert!(o.status.success(), "docker {args:?}: {o:?}");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Builds `tag` FROM taskc/base:bookworm with a marker file, with the classic builder.
fn build_base(tag: &str, marker: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Dockerfile"),
        format!("FROM taskc/base:bookworm\nRUN echo {marker} > /curator-real-marker\n"),
    )
    .unwrap();
    let o = Command::new("docker")
        .env("DOCKER_BUILDKIT", "0")
        .args(["build", "-q", "-t", tag])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
}

/// Removes images labelled `taskc.base=<base>` (what taskc built on it), then `tags`.
struct Cleanup {
    bases: Vec<String>,
    tags: Vec<String>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for base in &self.bases {
            let ids = docker(&[
                "images",
                "-q",
                "--no-trunc",
                "--filter",
                &format!("label=taskc.base={base}"),
            ]);
            for id in String::from_utf8_lossy(&ids.stdout).split_whitespace() {
                let _ = docker(&["rmi", "-f", id]);
            }
        }
        for t in &self.tags {
            let _ = docker(&["rmi", "-f", t]);
        }
    }
}

/// Copies the `cookie-split` example into `to` with a trivial environment (images only are
/// built here, no run), so the test builds in seconds.
fn example_copy(to: &Path) -> std::path::PathBuf {
    common::copy_dir(&root().join("examples/cookie-split"), to);
    let spec = to.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    let old = "  env python {\n    version \"3.11\"\n  }\n";
    assert!(text.contains(old));
    std::fs::write(
        &spec,
        text.replace(old, "  env generic {\n    dockerfile \"RUN true\"\n  }\n"),
    )
    .unwrap();
    spec
}

/// `taskc workspace --image <as>`: builds the task image; returns its content tag.
fn task_image(spec: &Path, out: &Path, cache: &Path, as_tag: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "workspace",
            "--backend",
            "docker",
            "--color",
            "never",
            "--image",
            as_tag,
        ])
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out)
        .arg(spec)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    text.lines()
        .find_map(|l| l.strip_prefix("tagged task image "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no tag in: {text}"))
        .to_string()
}

fn unique() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
            % 1_000_000_007
    )
}

#[test]
fn rebuilding_the_base_image_under_its_tag_rebuilds_the_images_on_it() {
    if !docker_or_skip() {
        return;
    }
    let u = unique();
    let base = format!("curator-real-test/base:{u}");
    let ws_tag = format!("curator-real-test/ws:{u}");
    let _cleanup = Cleanup {
        bases: vec![base.clone()],
        tags: vec![ws_tag.clone(), base.clone()],
    };
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("task");
    let spec = example_copy(&proj);
    std::fs::write(
        proj.join("taskc.toml"),
        format!("[images]\nbase = \"{base}\"\n"),
    )
    .unwrap();
    let cache = tmp.path().join("cache");

    build_base(&base, "first");
    let first = task_image(&spec, &tmp.path().join("ws1"), &cache, &ws_tag);
    let again = task_image(&spec, &tmp.path().join("ws2"), &cache, &ws_tag);
    assert_eq!(first, again, "same base image: same ids");

    build_base(&base, "second");
    let rebuilt = task_image(&spec, &tmp.path().join("ws3"), &cache, &ws_tag);
    assert_ne!(first, rebuilt, "the base image changed under its tag");
    let marker = docker_ok(&[
        "run",
        "--rm",
        "--network",
        "none",
        &rebuilt,
        "cat",
        "/curator-real-marker",
    ]);
    assert_eq!(marker, "second");
}

/// A self-signed CA certificate (PEM) made with openssl.
fn make_ca(dir: &Path) -> std::path::PathBuf {
    let pem = dir.join("corp-ca.pem");
    let o = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=curator-real test CA"])
        .arg("-keyout")
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(&pem)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    pem
}

/// The base64 body of a PEM file (what a trust store bundle contains verbatim).
fn pem_body(pem: &Path) -> String {
    std::fs::read_to_string(pem)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ca_certificates_from_taskc_toml_reach_the_task_images_trust_store() {
    if !docker_or_skip() {
        return;
    }
    let u = unique();
    let base = format!("curator-real-test/base:{u}");
    let ws_tag = format!("curator-real-test/ws:{u}");
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("task");
    let spec = example_copy(&proj);
    let pem = make_ca(&proj);
    std::fs::write(
        proj.join("taskc.toml"),
        format!("[images]\nbase = \"{base}\"\nca_certificates = [\"corp-ca.pem\"]\n"),
    )
    .unwrap();
    build_base(&base, "ca");
    let mut cleanup = Cleanup {
        bases: vec![],
        tags: vec![ws_tag.clone()],
    };
    let built = task_image(
        &spec,
        &tmp.path().join("ws"),
        &tmp.path().join("cache"),
        &ws_tag,
    );
    // The CA layer built on the test's base, and whatever was built on the layer.
    let layer = docker_ok(&[
        "images",
        "--format",
        "{{.Repository}}:{{.Tag}}",
        "--filter",
        &format!("label=taskc.base={base}"),
        "--filter",
        "reference=taskc/base:ca-*",
    ]);
    assert!(layer.starts_with("taskc/base:ca-"), "{layer}");
    cleanup.bases = vec![layer.clone()];
    cleanup.tags.push(layer.clone());
    cleanup.tags.push(base.clone());
    let bundle = docker_ok(&[
        "run",
        "--rm",
        "--network",
        "none",
        &built,
        "cat",
        "/etc/ssl/certs/ca-certificates.crt",
    ]);
    let body = pem_body(&pem);
    assert!(bundle.contains(&body), "the CA is not in the trust store");
    let env = docker_ok(&[
        "run",
        "--rm",
        "--network",
        "none",
        &built,
        "printenv",
        "PIP_CERT",
    ]);
    assert_eq!(env, "/etc/ssl/certs/ca-certificates.crt");

    // A certificate file that is not PEM is a usage error naming it.
    std::fs::write(&pem, "not a certificate\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "verify",
            "--backend",
            "docker",
            "--color",
            "never",
            "--no-lock",
        ])
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .arg(&spec)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("corp-ca.pem") && err.contains("not a PEM certificate"),
        "{err}"
    );
}

#[test]
fn bootstrap_with_a_ca_cert_layers_it_on_an_existing_plain_image() {
    if !docker_or_skip() {
        return;
    }
    let u = unique();
    let tag = format!("curator-real-test/boot:{u}");
    // A copy (same content id label) of the plain base image under the test's own tag.
    docker_ok(&["tag", "taskc/base:bookworm", &tag]);
    let _cleanup = Cleanup {
        bases: vec![],
        tags: vec![tag.clone()],
    };
    let tmp = tempfile::tempdir().unwrap();
    let pem = make_ca(tmp.path());
    let bootstrap = || {
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(["image", "bootstrap", "--tag", &tag, "--ca-cert"])
            .arg(&pem)
            .output()
            .unwrap()
    };
    let o = bootstrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains(" built in ") && out.contains("ca-certificates"),
        "{out}"
    );
    assert!(
        !out.contains("debootstrap"),
        "the plain image was reused: {out}"
    );
    let bundle = docker_ok(&[
        "run",
        "--rm",
        "--network",
        "none",
        &tag,
        "cat",
        "/etc/ssl/certs/ca-certificates.crt",
    ]);
    assert!(bundle.contains(&pem_body(&pem)));
    let plain = docker_ok(&[
        "image",
        "inspect",
        "-f",
        "{{index .Config.Labels \"taskc.base.content-id\"}}",
        "taskc/base:bookworm",
    ]);
    let with_ca = docker_ok(&[
        "image",
        "inspect",
        "-f",
        "{{index .Config.Labels \"taskc.base.content-id\"}}",
        &tag,
    ]);
    assert_ne!(plain, with_ca, "the certificate enters the content id");
    // The same certificate again: nothing to do.
    let again = bootstrap();
    let out = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        again.status.success() && out.contains("already present, reused"),
        "{out}"
    );
}
