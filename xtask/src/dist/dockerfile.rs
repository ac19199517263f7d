//! The Dockerfile copies only files this build produces.

use std::fs;
use std::path::Path;

use anyhow::{ensure, Context, Result};

/// Every `COPY --from=build` source in the Dockerfile names a file this build produced (the
/// build stage runs `cargo xtask dist` in `/src`), and the build context leaves `target/` out.
pub(super) fn check_dockerfile(root: &Path) -> Result<()> {
    let dockerfile = fs::read_to_string(root.join("Dockerfile")).context("reading Dockerfile")?;
    let mut copies = 0;
    for line in dockerfile.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["COPY", "--from=build", sources @ .., _destination] = words.as_slice() {
            for source in sources {
                let relative = source
                    .strip_prefix("/src/")
                    .with_context(|| format!("Dockerfile copies {source} from outside /src"))?;
                ensure!(
                    glob_matches(root, relative)?,
                    "Dockerfile copies {source}, which `cargo xtask dist` did not produce"
                );
                copies += 1;
            }
        }
    }
    ensure!(
        copies > 0,
        "the Dockerfile copies nothing from its build stage"
    );
    let ignore = fs::read_to_string(root.join(".dockerignore")).context("reading .dockerignore")?;
    ensure!(
        ignore
            .lines()
            .any(|l| l.trim() == "target" || l.trim() == "/target"),
        ".dockerignore must leave target/ out of the build context"
    );
    Ok(())
}

/// Whether `pattern` (path components, `*` within a component) matches a file under `root`.
fn glob_matches(root: &Path, pattern: &str) -> Result<bool> {
    let mut candidates = vec![root.to_path_buf()];
    for component in pattern.split('/') {
        let mut next = Vec::new();
        for dir in &candidates {
            if !component.contains('*') {
                let path = dir.join(component);
                if path.exists() {
                    next.push(path);
                }
                continue;
            }
            let Ok(entries) = fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if wildcard(component, &entry.file_name().to_string_lossy()) {
                    next.push(entry.path());
                }
            }
        }
        candidates = next;
    }
    Ok(!candidates.is_empty())
}

fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_one_component() {
        assert!(wildcard(
            "nodecheck-*-linux",
            "nodecheck-0.1.0-x86_64-linux"
        ));
        assert!(!wildcard(
            "nodecheck-*-linux",
            "nodecheck-0.1.0-x86_64-linux.tar.gz"
        ));
        assert!(wildcard("nodecheck", "nodecheck"));
    }
}
