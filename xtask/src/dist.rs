//! `cargo xtask dist`: shell completions (bash, zsh, fish) and the man pages, generated from
//! the same clap definition the binary parses with, into `target/dist`.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

pub fn run(args: &[String]) -> Result<()> {
    let out = match args {
        [] => crate::project_root().join("target/dist"),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => bail!("usage: cargo xtask dist [--out DIR]"),
    };
    let written = generate(&out)?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}

/// Writes completions to `out/completions/` and man pages to `out/man/`; returns the files.
pub fn generate(out: &Path) -> Result<Vec<PathBuf>> {
    let completions = out.join("completions");
    let man = out.join("man");
    fs::create_dir_all(&completions)
        .with_context(|| format!("cannot create {}", completions.display()))?;
    fs::create_dir_all(&man).with_context(|| format!("cannot create {}", man.display()))?;

    let mut written = Vec::new();
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        let mut cmd = nodecheck::cli::Cli::command();
        let path = clap_complete::generate_to(shell, &mut cmd, "nodecheck", &completions)
            .with_context(|| format!("cannot write {shell} completions"))?;
        written.push(path);
    }

    // One page for the command and one per subcommand (`nodecheck-check.1`), as git does.
    clap_mangen::generate_to(nodecheck::cli::Cli::command(), &man)
        .with_context(|| format!("cannot write man pages to {}", man.display()))?;
    let mut pages: Vec<PathBuf> = fs::read_dir(&man)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .collect();
    pages.sort();
    written.extend(pages);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_completions_and_pages() {
        let dir = std::env::temp_dir().join(format!("nodecheck-dist-test-{}", std::process::id()));
        let written = generate(&dir).expect("generates");
        let names: Vec<String> = written
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        for expected in [
            "nodecheck.bash",
            "_nodecheck",
            "nodecheck.fish",
            "nodecheck.1",
            "nodecheck-check.1",
            "nodecheck-triage.1",
        ] {
            assert!(
                names.iter().any(|n| n == expected),
                "{expected} missing from {names:?}"
            );
        }
        let bash = fs::read_to_string(dir.join("completions/nodecheck.bash")).expect("bash");
        assert!(
            bash.contains("--snapshot"),
            "bash completion knows check's options"
        );
        let page = fs::read_to_string(dir.join("man/nodecheck-check.1")).expect("page");
        assert!(
            page.contains("\\-\\-bench") || page.contains("--bench"),
            "man page lists --bench"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
