//! What `warpscope kernels --kernel-file` shows: a kernel file's declarations in words (grid rule,
//! parameters, verification), its arguments as table rows evaluated at one configuration, and the
//! checks of built modules against their PTX.

use super::compile::{Built, Code, CompileError};
use super::expand::{ArgValue, Config, Expansion};
use super::file::{ArgKind, Expected, GridRule, KernelFile, Role};
use crate::error::{Error, Result};

/// `(label, text)` lines describing the file.
pub fn overview(k: &KernelFile) -> Vec<(&'static str, String)> {
    let src = &k.sources[0];
    let how = match src.image.kind() {
        "cu" => "CUDA C++, compiled at run time with NVRTC",
        "ptx" => "PTX, JIT-compiled by the driver",
        _ => "a binary for the driver",
    };
    let mut out = vec![
        ("kernel", format!("{} (entry {} in {}: {how})", k.name, k.entry, src.path.display())),
        ("problem", if k.sizes.is_empty() { "no sizes".into() } else { k.problem_label() }),
    ];
    let join = |es: &[super::file::LExpr]| es.iter().map(|e| e.expr.text().to_string()).collect::<Vec<_>>();
    let grid = match &k.grid {
        GridRule::Explicit(axes) => {
            let t = join(axes);
            ["x", "y", "z"]
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{a} = {}", t.get(i).map_or("1", String::as_str)))
                .collect::<Vec<_>>()
                .join(", ")
        }
        GridRule::Divided { sizes, divisors } => ["x", "y", "z"]
            .iter()
            .enumerate()
            .map(|(i, a)| match sizes.get(i) {
                Some(s) => match join(&divisors[i]).as_slice() {
                    [] => format!("{a} = {}", s.expr.text()),
                    [d] => format!("{a} = ceil({} / {d})", s.expr.text()),
                    ds => format!("{a} = ceil({} / ({}))", s.expr.text(), ds.join(" * ")),
                },
                None => format!("{a} = 1"),
            })
            .collect::<Vec<_>>()
            .join(", "),
    };
    out.push(("grid", grid));
    if let Some(s) = &k.shared_memory {
        out.push(("shared memory", format!("{} bytes per block (dynamic)", s.expr.text())));
    }
    let mut params: Vec<String> = k
        .params
        .iter()
        .map(|p| format!("{} = {}", p.name, p.values.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")))
        .collect();
    if let Some(blocks) = k.default_blocks() {
        params.push(format!("blocks {}", blocks.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")));
    }
    out.push(("parameters", if params.is_empty() { "none".into() } else { params.join("; ") }));
    if !k.restrictions.is_empty() {
        out.push((
            "restrictions",
            k.restrictions.iter().map(|r| r.expr.text().to_string()).collect::<Vec<_>>().join("; "),
        ));
    }
    let tol = format!("|got - want| <= {} + {} |want|", k.verify.atol, k.verify.rtol);
    let verify = match &k.verify.expected {
        Expected::Reference(r) => format!(
            "against reference kernel {} at block {} ({})",
            r.entry,
            r.block,
            k.sources[r.source].path.display()
        ),
        Expected::Npy(files) => format!(
            "against {}",
            files.iter().map(|(i, p)| format!("{} = {}", k.args[*i].name, p.display())).collect::<Vec<_>>().join(", ")
        ),
        Expected::SameAsFirst => "every configuration against the first one (no reference given)".into(),
    };
    out.push(("verification", format!("{verify}; {tol}")));
    out
}

/// One row per argument: position, name, type, kind, length or value (evaluated at `at` when given),
/// contents.
pub fn arg_rows(k: &KernelFile, at: Option<&Config>) -> Vec<[String; 6]> {
    k.args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let evaluated = at.and_then(|c| match c.args.get(i)? {
                ArgValue::Buffer(b) => Some(c.buffers[*b].len.to_string()),
                ArgValue::Scalar { value, .. } => Some(value.to_string()),
            });
            let (kind, expr, contents) = match &a.kind {
                ArgKind::Buffer { len, role, init } => {
                    let contents = match (role, init) {
                        (Role::Output, _) => "poisoned, verified".to_string(),
                        (Role::InOut, Some(i)) => format!("{i}, verified"),
                        (_, Some(i)) => i.to_string(),
                        (_, None) => "-".into(),
                    };
                    let kind = match role {
                        Role::Input => "input",
                        Role::Output => "output",
                        Role::InOut => "in/out",
                    };
                    (kind, len.expr.text(), contents)
                }
                ArgKind::Scalar { value } => ("scalar", value.expr.text(), "-".to_string()),
            };
            let shown = match evaluated {
                Some(v) if v != expr => format!("{expr} = {v}"),
                _ => expr.to_string(),
            };
            [i.to_string(), a.name.clone(), a.ty.to_string(), kind.to_string(), shown, contents]
        })
        .collect()
}

/// Checks every built module's PTX against the arguments (the entry of the configurations using it);
/// returns how many modules failed to build. When none built, the first failure is the error, with the
/// compiler's log.
pub fn check_built(
    k: &KernelFile,
    ex: &Expansion,
    built: &[std::result::Result<Built, CompileError>],
) -> Result<usize> {
    if let Some(Err(e)) = built.first()
        && built.iter().all(|b| b.is_err())
    {
        let log = if e.log.is_empty() { String::new() } else { format!("\n{}", e.log.trim_end()) };
        return Err(Error::usage(format!("{}{log}", e.summary)));
    }
    for (m, b) in built.iter().enumerate() {
        let Ok(Built { code: Code::Ptx(ptx), .. }) = b else { continue };
        let users = ex.configs.iter().chain(ex.reference.as_ref()).filter(|c| c.module == m);
        let mut entries: Vec<&str> = users.map(|c| c.entry.as_str()).collect();
        entries.dedup();
        for entry in entries {
            let at = match &k.verify.expected {
                Expected::Reference(r) if r.entry == entry => r.entry_at,
                _ => k.entry_at,
            };
            k.check_ptx(ptx, entry, at)?;
        }
    }
    Ok(built.iter().filter(|b| b.is_err()).count())
}
