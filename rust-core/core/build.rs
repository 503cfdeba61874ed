//! Links the codec libraries statically so that libisthmus.so depends on nothing
//! beyond libc, libm and libgcc_s: the Java side ships one file per platform and
//! must not rely on whatever compression libraries the host has installed.

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

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed={DIR_OVERRIDE}");

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
