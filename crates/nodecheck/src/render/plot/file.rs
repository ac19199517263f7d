//! Where a plot goes: the SVG and its PNG twin, checked before a run and written through
//! [`crate::output_file`], never through a link planted at either name.

use std::path::{Path, PathBuf};

use bench::BenchReport;

use super::{render_svg, svg_to_png, PlotError};

/// The SVG and the PNG a plot is written to: `path` as given (`*.svg` or `*.png`) and its
/// twin with the other extension. `None` for any other name.
pub fn plot_paths(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let extension = path.extension()?.to_str()?;
    if extension.eq_ignore_ascii_case("svg") {
        Some((path.to_path_buf(), path.with_extension("png")))
    } else if extension.eq_ignore_ascii_case("png") {
        Some((path.with_extension("svg"), path.to_path_buf()))
    } else {
        None
    }
}

/// Whether a plot can be written to `path` (it must end in `.svg` or `.png`, and both files
/// must be creatable: see [`crate::output_file::check_target`]); check before a long run.
pub fn check_plot_path(path: &Path) -> Result<(), PlotError> {
    let (svg, png) =
        plot_paths(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    [svg, png].iter().try_for_each(|target| {
        crate::output_file::check_target(target).map_err(|source| write_error(target, source))
    })
}

fn write_error(target: &Path, source: std::io::Error) -> PlotError {
    let path = target.display().to_string();
    PlotError::Write { path, source }
}

/// Renders the plot and writes it to `path` (`*.svg` or `*.png`) and to its twin with the
/// other extension (see [`plot_paths`]).
pub fn write_plot(report: &BenchReport, path: &Path) -> Result<(), PlotError> {
    let (svg_path, png_path) =
        plot_paths(path).ok_or_else(|| PlotError::Format(path.display().to_string()))?;
    let svg = render_svg(report)?;
    let png = svg_to_png(&svg)?;
    let write = |target: &Path, bytes: &[u8]| {
        crate::output_file::write_bytes(target, bytes).map_err(|err| write_error(target, err))
    };
    write(&svg_path, svg.as_bytes())?;
    write(&png_path, &png)
}
