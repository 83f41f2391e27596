//! An image reference as Docker reads it: `[registry[:port]/]repository[:tag][@digest]`,
//! split without touching anything (`docs/plan.md`, "Base images by digest").

/// A parsed image reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    /// The repository as written, with its registry (`127.0.0.1:5000/x`, `golang`).
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:…` when the reference is pinned.
    pub digest: Option<String>,
}

impl ImageRef {
    /// `reference` split into repository, tag and digest. A `:` after the last `/` starts
    /// the tag (one before it is a registry's port).
    pub fn parse(reference: &str) -> ImageRef {
        let (name, digest) = match reference.split_once('@') {
            Some((n, d)) => (n, Some(d.to_string())),
            None => (reference, None),
        };
        let slash = name.rfind('/').map_or(0, |i| i + 1);
        let (repository, tag) = match name[slash..].rfind(':') {
            Some(i) => (&name[..slash + i], Some(name[slash + i + 1..].to_string())),
            None => (name, None),
        };
        ImageRef {
            repository: repository.to_string(),
            tag,
            digest,
        }
    }

    /// The repository as the engine lists it in an image's `RepoDigests`: Docker Hub's
    /// `docker.io/library/` (and `index.docker.io/`) left out.
    pub fn normalized_repository(&self) -> &str {
        let r = self.repository.as_str();
        let r = r
            .strip_prefix("docker.io/")
            .or_else(|| r.strip_prefix("index.docker.io/"))
            .unwrap_or(r);
        r.strip_prefix("library/").unwrap_or(r)
    }

    /// The tag, or Docker's default `latest`.
    pub fn tag_or_latest(&self) -> &str {
        self.tag.as_deref().unwrap_or("latest")
    }

    /// `repository@digest`: what a pull by digest names.
    pub fn with_digest(&self, digest: &str) -> String {
        format!("{}@{digest}", self.repository)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_ports_tags_and_digests_are_told_apart() {
        let r = ImageRef::parse("127.0.0.1:5055/wsegraph-base:v1");
        assert_eq!(r.repository, "127.0.0.1:5055/wsegraph-base");
        assert_eq!(r.tag.as_deref(), Some("v1"));
        assert_eq!(r.digest, None);
        let r = ImageRef::parse("127.0.0.1:5055/wsegraph-base");
        assert_eq!(r.repository, "127.0.0.1:5055/wsegraph-base");
        assert_eq!(r.tag_or_latest(), "latest");
        let r = ImageRef::parse("golang:1.26-bookworm@sha256:ab");
        assert_eq!(r.repository, "golang");
        assert_eq!(r.tag.as_deref(), Some("1.26-bookworm"));
        assert_eq!(r.digest.as_deref(), Some("sha256:ab"));
        assert_eq!(
            ImageRef::parse("docker.io/library/golang:1").normalized_repository(),
            "golang"
        );
        assert_eq!(r.with_digest("sha256:cd"), "golang@sha256:cd");
    }
}
