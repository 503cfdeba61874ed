//! Links the codec libraries statically so that libisthmus.so depends on nothing
//! beyond libc, libm and libgcc_s: the Java side ships one file per platform and
//! must not rely on whatever compression libraries the host has installed.
//!
//! zstd is linked twice. Decompression uses the libzstd beside the other codecs;
//! compression uses a second copy of libzstd with every global symbol renamed
//! ([`COMPRESSOR_PREFIX`]), taken from [`COMPRESSOR_OVERRIDE`] when it is set and
//! from the same archive otherwise. So a newer release can compress (libzstd
//! 1.5.7 compresses level 3 about a fifth faster than Debian bookworm's 1.5.4)
//! while the older one keeps decompressing, which it does faster
//! (`docs/benchmarks.md`, Which libzstd); the two never share a symbol.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Archives in link order (an archive must come before the ones it depends on),
/// with the Debian package that provides each.
const LIBRARIES: &[(&str, &str)] = &[
    ("zstd", "libzstd-dev"),
    ("snappy", "libsnappy-dev"),
    ("lz4", "liblz4-dev"),
    ("z", "zlib1g-dev"),
    ("brotlienc", "libbrotli-dev"),
    ("brotlidec", "libbrotli-dev"),
    ("brotlicommon", "libbrotli-dev"),
];

const DIR_OVERRIDE: &str = "ISTHMUS_STATIC_LIB_DIR";
/// A `libzstd.a` to compress with, instead of the one in the codecs' directory.
const COMPRESSOR_OVERRIDE: &str = "ISTHMUS_ZSTD_COMPRESSOR";
/// Put before each global symbol of the compressing libzstd; `src/compression/zstd.rs`
/// declares its compression functions under these names.
const COMPRESSOR_PREFIX: &str = "isthmus_zc_";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={DIR_OVERRIDE}");
    println!("cargo:rerun-if-env-changed={COMPRESSOR_OVERRIDE}");

    let dir = static_lib_dir();
    let mut missing = Vec::new();
    for (name, package) in LIBRARIES {
        let archive = dir.join(format!("lib{name}.a"));
        if archive.is_file() {
            println!("cargo:rerun-if-changed={}", archive.display());
        } else {
            missing.push(format!(
                "  {} (Debian package {package})",
                archive.display()
            ));
        }
    }
    if !missing.is_empty() {
        fail(&format!(
            "missing static libraries:\n{}\nInstall the packages named above (apt-get install ...), \
             or set {DIR_OVERRIDE} to the directory that holds them.",
            missing.join("\n")
        ));
    }

    // Snappy is C++; its C API still needs operator new/delete and a few other
    // runtime pieces, which we take from the static libstdc++ rather than
    // depending on libstdc++.so.
    let libstdcxx = compiler_file("g++", "libstdc++.a").unwrap_or_else(|| {
        fail(
            "libstdc++.a not found via `g++ -print-file-name=libstdc++.a`; \
             install the Debian package g++ (it brings libstdc++-<version>-dev)",
        )
    });
    println!("cargo:rerun-if-changed={}", libstdcxx.display());

    let compressor = match env::var_os(COMPRESSOR_OVERRIDE) {
        Some(path) => {
            let path = PathBuf::from(path);
            if !path.is_file() {
                fail(&format!(
                    "{COMPRESSOR_OVERRIDE}={} is not a file (ci/fetch-zstd.sh fetches the \
                     libzstd.a it names)",
                    path.display()
                ));
            }
            println!("cargo:rerun-if-changed={}", path.display());
            path
        }
        None => dir.join("libzstd.a"),
    };
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    rename_symbols(&compressor, &out_dir.join("libisthmus_zstd_compressor.a"));
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=static=isthmus_zstd_compressor");

    println!("cargo:rustc-link-search=native={}", dir.display());
    for (name, _) in LIBRARIES.iter().take(2) {
        println!("cargo:rustc-link-lib=static={name}");
    }
    // Right after snappy, which is the only archive that needs it.
    let stdcxx_dir = libstdcxx.parent().expect("a file path has a parent");
    println!("cargo:rustc-link-search=native={}", stdcxx_dir.display());
    println!("cargo:rustc-link-lib=static=stdc++");
    for (name, _) in LIBRARIES.iter().skip(2) {
        println!("cargo:rustc-link-lib=static={name}");
    }
}

/// Writes `archive` to `renamed` with [`COMPRESSOR_PREFIX`] before every global
/// symbol it defines (hidden ones too: a static link sees them all), and before
/// every reference to one. References to anything else (libc) stay as they are.
fn rename_symbols(archive: &Path, renamed: &Path) {
    let archive_arg = archive.to_string_lossy();
    let listing = run("nm", &["-g", "--defined-only", &archive_arg]).unwrap_or_else(|| {
        fail(&format!(
            "`nm -g --defined-only {archive_arg}` failed; install the Debian package binutils"
        ))
    });
    let mut symbols: Vec<&str> = listing
        .lines()
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                [_, _, symbol] => Some(symbol),
                _ => None,
            },
        )
        .collect();
    symbols.sort_unstable();
    symbols.dedup();
    if !symbols.contains(&"ZSTD_compress2") {
        fail(&format!(
            "{archive_arg} does not define ZSTD_compress2: not a libzstd archive"
        ));
    }
    let map: String = symbols
        .iter()
        .map(|symbol| format!("{symbol} {COMPRESSOR_PREFIX}{symbol}\n"))
        .collect();
    let map_file = renamed.with_extension("symbols");
    std::fs::write(&map_file, map)
        .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", map_file.display())));
    let redefine = format!("--redefine-syms={}", map_file.display());
    if run(
        "objcopy",
        &[&redefine, &archive_arg, &renamed.to_string_lossy()],
    )
    .is_none()
    {
        fail(&format!(
            "`objcopy {redefine} {archive_arg}` failed; install the Debian package binutils"
        ));
    }
}

/// The directory holding the codec archives: the override if set, else where gcc
/// finds libzstd.a, else the multiarch library directory.
fn static_lib_dir() -> PathBuf {
    if let Some(dir) = env::var_os(DIR_OVERRIDE) {
        let dir = PathBuf::from(dir);
        if !dir.is_dir() {
            fail(&format!(
                "{DIR_OVERRIDE}={} is not a directory",
                dir.display()
            ));
        }
        return dir;
    }
    if let Some(zstd) = compiler_file("gcc", "libzstd.a") {
        if let Some(parent) = zstd.parent() {
            return normalize(parent);
        }
    }
    match run("gcc", &["-print-multiarch"]) {
        Some(triple) if !triple.is_empty() => PathBuf::from("/usr/lib").join(triple),
        _ => PathBuf::from("/usr/lib"),
    }
}

/// Asks `compiler -print-file-name=file`; the compiler echoes the bare name back
/// when it cannot find the file.
fn compiler_file(compiler: &str, file: &str) -> Option<PathBuf> {
    let printed = run(compiler, &[&format!("-print-file-name={file}")])?;
    let path = PathBuf::from(printed);
    (path.is_absolute() && path.is_file()).then_some(path)
}

fn run(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    Some(String::from_utf8(output.stdout).ok()?.trim().to_owned())
}

/// gcc reports paths like /usr/lib/gcc/x86_64-linux-gnu/12/../../../x86_64-linux-gnu;
/// resolve them so the link line and error messages stay readable.
fn normalize(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

fn fail(message: &str) -> ! {
    // Cargo shows a build script's panic message, which is all we need.
    panic!("{message}");
}
