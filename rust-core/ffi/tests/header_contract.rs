//! Keeps `include/isthmus.h` and the Rust exports from drifting apart:
//!
//! 1. A C program compiled against the header prints every struct's layout and
//!    every integer constant; they must equal `isthmus_layout_manifest()` and the
//!    Rust constants.
//! 2. The header's prototypes and the `#[no_mangle]` functions of the workspace
//!    must declare the same functions with the same parameter and return types,
//!    and every such function must live in this crate (`ffi/src`).
//!
//! `ci/check-native-lib.sh` closes the loop on the built .so's symbol table.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use isthmus::{library, parquet, ERROR_MESSAGE_CAPACITY};
use isthmus_core::arrow::c_data as arrow;
use isthmus_core::compression::Codec;
use isthmus_core::error::Status;

/// `rust-core/ffi`, this crate.
fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `rust-core`, the workspace: the header lives in its `include/`.
fn workspace_dir() -> &'static Path {
    crate_dir()
        .parent()
        .expect("the crate lies inside the workspace")
}

fn header() -> String {
    fs::read_to_string(workspace_dir().join("include/isthmus.h")).expect("read include/isthmus.h")
}

// ------------------------------------------------------------------ C subset

/// The header without comments; `#` lines are kept only if `keep_directives`.
fn strip_comments(source: &str, keep_directives: bool) -> String {
    let mut out = String::new();
    let mut rest = source;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unterminated comment") + start + 2;
        // Keep line structure so directives stay on their own lines.
        out.extend(rest[start..end].chars().filter(|&c| c == '\n'));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.lines()
        .map(|line| line.split("//").next().unwrap())
        .filter(|line| keep_directives || !line.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut word = String::new();
            while let Some(&c) = chars
                .peek()
                .filter(|c| c.is_ascii_alphanumeric() || **c == '_')
            {
                word.push(c);
                chars.next();
            }
            tokens.push(word);
        } else if c == '"' {
            let mut literal = String::from(chars.next().unwrap());
            for c in chars.by_ref() {
                literal.push(c);
                if c == '"' {
                    break;
                }
            }
            tokens.push(literal);
        } else {
            tokens.push(chars.next().unwrap().to_string());
        }
    }
    tokens
}

fn is_identifier(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// A function signature in C spelling: types are tokens joined by single spaces,
/// e.g. "const uint8_t *".
#[derive(Debug, PartialEq, Eq)]
struct Signature {
    returns: String,
    params: Vec<(String, String)>,
}

/// Prototypes of `isthmus_*` functions: `type name(type name, ...);`.
fn header_functions(header: &str) -> BTreeMap<String, Signature> {
    let tokens = tokenize(&strip_comments(header, false));
    let mut functions = BTreeMap::new();
    for (i, token) in tokens.iter().enumerate() {
        if !token.starts_with("isthmus_") || tokens.get(i + 1).map(String::as_str) != Some("(") {
            continue;
        }
        let start = tokens[..i]
            .iter()
            .rposition(|t| matches!(t.as_str(), ";" | "{" | "}"))
            .map_or(0, |p| p + 1);
        let returns = tokens[start..i].join(" ");
        let close = i
            + 1
            + tokens[i + 1..]
                .iter()
                .position(|t| t == ")")
                .expect("unclosed parameter list");
        assert_eq!(
            tokens.get(close + 1).map(String::as_str),
            Some(";"),
            "{token} is not a prototype"
        );
        let inner = &tokens[i + 2..close];
        let params = if inner == ["void"] {
            Vec::new()
        } else {
            inner
                .split(|t| t == ",")
                .map(|param| {
                    let (name, ty) = param.split_last().expect("empty parameter");
                    assert!(
                        is_identifier(name) && !ty.is_empty(),
                        "{token}: unnamed parameter {param:?}"
                    );
                    (name.clone(), ty.join(" "))
                })
                .collect()
        };
        let previous = functions.insert(token.clone(), Signature { returns, params });
        assert!(previous.is_none(), "{token} declared twice");
    }
    functions
}

/// `struct tag { fields }` definitions: (tag, field names in order).
fn header_structs(header: &str) -> Vec<(String, Vec<String>)> {
    let tokens = tokenize(&strip_comments(header, false));
    let mut structs = Vec::new();
    for i in 0..tokens.len().saturating_sub(2) {
        if tokens[i] != "struct" || tokens[i + 2] != "{" {
            continue;
        }
        let close = i
            + 2
            + tokens[i + 2..]
                .iter()
                .position(|t| t == "}")
                .expect("unclosed struct");
        let fields = tokens[i + 3..close]
            .split(|t| t == ";")
            .filter(|decl| !decl.is_empty())
            .map(|decl| {
                // `ret (*name)(args)` names a function pointer; otherwise the name is
                // the last identifier before any array suffix.
                if let Some(p) = decl.windows(2).position(|w| w[0] == "(" && w[1] == "*") {
                    return decl[p + 2].clone();
                }
                let end = decl.iter().position(|t| t == "[").unwrap_or(decl.len());
                decl[end - 1].clone()
            })
            .collect();
        structs.push((tokens[i + 1].clone(), fields));
    }
    structs
}

/// `#define NAME <integer>` lines (include guards have no value and are skipped).
fn header_constants(header: &str) -> Vec<String> {
    strip_comments(header, true)
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next()? == "#define").then_some(())?;
            let name = words.next()?;
            let value = words.next()?;
            value.trim_start_matches('-').parse::<i64>().ok()?;
            Some(name.to_owned())
        })
        .collect()
}

// ------------------------------------------------------------------ C probe

struct Probe {
    manifest: String,
    constants: BTreeMap<String, i64>,
}

/// Compiles and runs the probe once per test binary; tests share the result.
fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(|| run_probe(&header()))
}

fn run_probe(header: &str) -> Probe {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("header_contract");
    fs::create_dir_all(&dir).unwrap();

    let mut structs = String::new();
    for (tag, fields) in header_structs(header) {
        structs.push_str(&format!("PROBE_STRUCT({tag})\n"));
        for field in fields {
            structs.push_str(&format!("PROBE_FIELD({tag}, {field})\n"));
        }
        structs.push_str("PROBE_END()\n");
    }
    fs::write(dir.join("probe_structs.h"), structs).unwrap();
    let constants: String = header_constants(header)
        .iter()
        .map(|name| format!("PROBE_CONSTANT({name})\n"))
        .collect();
    fs::write(dir.join("probe_constants.h"), constants).unwrap();

    let binary = dir.join("layout_probe");
    let compile = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(workspace_dir().join("include"))
        .arg("-I")
        .arg(&dir)
        .arg(crate_dir().join("tests/c/layout_probe.c"))
        .arg("-o")
        .arg(&binary)
        .output()
        .expect("run gcc (install the Debian package gcc)");
    assert!(
        compile.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&compile.stderr)
    );

    let run = Command::new(&binary)
        .output()
        .expect("run the layout probe");
    assert!(
        run.status.success(),
        "layout probe failed: {:?}",
        run.status
    );
    let stdout = String::from_utf8(run.stdout).unwrap();
    let (manifest, constants) = stdout
        .split_once("--\n")
        .expect("probe output has a separator");
    let constants = constants
        .lines()
        .map(|line| {
            let (name, value) = line.split_once(' ').unwrap();
            (name.to_owned(), value.parse().unwrap())
        })
        .collect();
    Probe {
        manifest: manifest.to_owned(),
        constants,
    }
}

/// Every integer constant the header defines, as the Rust code sees it.
fn rust_constants() -> BTreeMap<String, i64> {
    let statuses = [
        ("ISTHMUS_OK", Status::Ok),
        ("ISTHMUS_ERR_INVALID_ARGUMENT", Status::InvalidArgument),
        ("ISTHMUS_ERR_BUFFER_TOO_SMALL", Status::BufferTooSmall),
        ("ISTHMUS_ERR_CORRUPT_DATA", Status::CorruptData),
        ("ISTHMUS_ERR_UNSUPPORTED", Status::Unsupported),
        ("ISTHMUS_ERR_IO", Status::Io),
        ("ISTHMUS_ERR_OUT_OF_MEMORY", Status::OutOfMemory),
        ("ISTHMUS_ERR_INTERNAL", Status::Internal),
    ];
    let codecs = [
        ("ISTHMUS_CODEC_UNCOMPRESSED", Codec::Uncompressed),
        ("ISTHMUS_CODEC_SNAPPY", Codec::Snappy),
        ("ISTHMUS_CODEC_GZIP", Codec::Gzip),
        ("ISTHMUS_CODEC_BROTLI", Codec::Brotli),
        ("ISTHMUS_CODEC_LZ4_HADOOP", Codec::Lz4Hadoop),
        ("ISTHMUS_CODEC_ZSTD", Codec::Zstd),
        ("ISTHMUS_CODEC_LZ4_RAW", Codec::Lz4Raw),
    ];
    assert_eq!(codecs.len(), Codec::ALL.len(), "every codec has a constant");
    let mut constants: BTreeMap<String, i64> = [
        ("ISTHMUS_ABI_VERSION", library::ABI_VERSION as i64),
        (
            "ISTHMUS_ERROR_MESSAGE_CAPACITY",
            ERROR_MESSAGE_CAPACITY as i64,
        ),
        (
            "ARROW_FLAG_DICTIONARY_ORDERED",
            arrow::ARROW_FLAG_DICTIONARY_ORDERED,
        ),
        ("ARROW_FLAG_NULLABLE", arrow::ARROW_FLAG_NULLABLE),
        (
            "ARROW_FLAG_MAP_KEYS_SORTED",
            arrow::ARROW_FLAG_MAP_KEYS_SORTED,
        ),
        (
            "ISTHMUS_SCAN_FLAG_KEEP_DICTIONARIES",
            i64::from(parquet::SCAN_FLAG_KEEP_DICTIONARIES),
        ),
        (
            "ISTHMUS_SCAN_FLAG_SKIP_CRC",
            i64::from(parquet::SCAN_FLAG_SKIP_CRC),
        ),
        (
            "ISTHMUS_SCAN_DEFAULT_MAX_PAGE_SIZE",
            isthmus_core::parquet::DEFAULT_MAX_PAGE_SIZE as i64,
        ),
        ("ISTHMUS_SCAN_STATE_END", i64::from(parquet::SCAN_STATE_END)),
        (
            "ISTHMUS_SCAN_STATE_BATCH",
            i64::from(parquet::SCAN_STATE_BATCH),
        ),
        (
            "ISTHMUS_SCAN_STATE_NEED_RANGES",
            i64::from(parquet::SCAN_STATE_NEED_RANGES),
        ),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    constants.extend(
        statuses
            .iter()
            .map(|(name, status)| (name.to_string(), status.code() as i64)),
    );
    constants.extend(
        codecs
            .iter()
            .map(|(name, codec)| (name.to_string(), codec.id() as i64)),
    );
    constants
}

#[test]
fn struct_layouts_match_the_c_compiler() {
    let header = header();
    let structs: Vec<String> = header_structs(&header)
        .into_iter()
        .map(|(tag, _)| tag)
        .collect();
    assert_eq!(
        structs,
        [
            "isthmus_error",
            "ArrowSchema",
            "ArrowArray",
            "isthmus_arrow_stats",
            "isthmus_file_info",
            "isthmus_row_group_info",
            "isthmus_column_info",
            "isthmus_column_chunk_info",
            "isthmus_scan_options",
            "isthmus_range"
        ]
    );

    let probe = probe();
    let rust = unsafe { CStr::from_ptr(library::isthmus_layout_manifest()) }
        .to_str()
        .unwrap();
    assert_eq!(
        rust, probe.manifest,
        "Rust layout (left) differs from the C compiler's (right)"
    );
}

#[test]
fn constants_match_the_header() {
    let probe = probe();
    assert!(probe.constants.contains_key("ISTHMUS_ABI_VERSION"));
    assert_eq!(
        rust_constants(),
        probe.constants,
        "Rust constants (left) differ from the header's (right)"
    );
    assert_eq!(
        library::isthmus_abi_version() as i64,
        probe.constants["ISTHMUS_ABI_VERSION"]
    );
}

// ------------------------------------------------------------------ Rust exports

fn rust_sources(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_sources(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// Splits at commas outside brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The C spelling of an FFI-safe Rust type, in the token format of [`Signature`].
fn rust_type_to_c(ty: &str) -> String {
    let ty = ty.trim();
    for (prefix, is_const) in [("*const ", true), ("*mut ", false)] {
        if let Some(pointee) = ty.strip_prefix(prefix) {
            let pointee = rust_type_to_c(pointee);
            return match (is_const, pointee.ends_with('*')) {
                (false, _) => format!("{pointee} *"),
                (true, false) => format!("const {pointee} *"),
                (true, true) => format!("{pointee} const *"),
            };
        }
    }
    let base = ty.rsplit("::").next().unwrap();
    match base {
        "i8" => "int8_t",
        "u8" => "uint8_t",
        "i16" => "int16_t",
        "u16" => "uint16_t",
        "i32" => "int32_t",
        "u32" => "uint32_t",
        "i64" => "int64_t",
        "u64" => "uint64_t",
        "usize" => "size_t",
        "bool" => "bool",
        "c_char" => "char",
        "c_int" => "int",
        "c_void" | "()" => "void",
        "IsthmusError" => "isthmus_error",
        "IsthmusArrowStats" => "isthmus_arrow_stats",
        "IsthmusFile" => "isthmus_file",
        "IsthmusScan" => "isthmus_scan",
        "IsthmusScanMemory" => "isthmus_scan_memory",
        "IsthmusFileInfo" => "isthmus_file_info",
        "IsthmusRowGroupInfo" => "isthmus_row_group_info",
        "IsthmusColumnInfo" => "isthmus_column_info",
        "IsthmusColumnChunkInfo" => "isthmus_column_chunk_info",
        "IsthmusScanOptions" => "isthmus_scan_options",
        "IsthmusRange" => "isthmus_range",
        "IsthmusWriter" => "isthmus_writer",
        "IsthmusWriteResult" => "isthmus_write_result",
        "ArrowSchema" => "struct ArrowSchema",
        "ArrowArray" => "struct ArrowArray",
        other => panic!("no C spelling for Rust type `{other}`; extend rust_type_to_c"),
    }
    .to_owned()
}

/// `#[no_mangle]` functions of both crates: (file, name, signature).
fn rust_exports() -> Vec<(PathBuf, String, Signature)> {
    let mut files = Vec::new();
    for member in ["core", "ffi"] {
        rust_sources(&workspace_dir().join(member).join("src"), &mut files);
    }
    let mut exports = Vec::new();
    for file in files {
        let source = fs::read_to_string(&file).unwrap();
        let mut rest = source.as_str();
        while let Some(at) = ["#[no_mangle]", "#[unsafe(no_mangle)]"]
            .iter()
            .filter_map(|a| rest.find(a))
            .min()
        {
            let item = &rest[at..];
            let body = item.find('{').expect("function body");
            let head = &item[..body];
            rest = &item[body..];
            let fn_at = head
                .find("fn ")
                .unwrap_or_else(|| panic!("{}: #[no_mangle] on a non-function", file.display()));
            let qualifiers = head[..fn_at]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let qualifiers = qualifiers.rsplit(']').next().unwrap().trim();
            assert!(
                matches!(qualifiers, "pub extern \"C\"" | "pub unsafe extern \"C\""),
                "{}: export declared as `{qualifiers} fn`",
                file.display()
            );
            let signature = &head[fn_at + 3..];
            let open = signature.find('(').unwrap();
            let close = signature.rfind(')').unwrap();
            let name = signature[..open].trim().to_owned();
            let params = split_top_level(&signature[open + 1..close])
                .into_iter()
                .map(|param| {
                    let (name, ty) = param.split_once(':').expect("typed parameter");
                    (name.trim().to_owned(), rust_type_to_c(ty))
                })
                .collect();
            let returns = match signature[close + 1..].trim().strip_prefix("->") {
                Some(ty) => rust_type_to_c(ty),
                None => "void".to_owned(),
            };
            exports.push((file.clone(), name, Signature { returns, params }));
        }
    }
    exports
}

#[test]
fn exports_match_the_header_prototypes() {
    let header = header_functions(&header());
    assert!(header.len() >= 7, "parsed only {:?}", header.keys());

    let ffi_dir = crate_dir().join("src");
    let mut rust = BTreeMap::new();
    for (file, name, signature) in rust_exports() {
        assert!(
            file.starts_with(&ffi_dir),
            "{name} is exported from {}, outside ffi/src",
            file.display()
        );
        assert!(
            rust.insert(name.clone(), signature).is_none(),
            "{name} exported twice"
        );
    }

    let header_names: Vec<_> = header.keys().collect();
    let rust_names: Vec<_> = rust.keys().collect();
    assert_eq!(
        rust_names, header_names,
        "Rust exports (left) differ from the header's functions (right)"
    );
    for (name, declared) in &header {
        assert_eq!(
            &rust[name], declared,
            "{name}: Rust signature (left) differs from the header's (right)"
        );
    }
}

#[test]
fn the_parsers_understand_this_header() {
    let functions = header_functions(&header());
    assert_eq!(
        functions["isthmus_codec_compress"],
        Signature {
            returns: "int32_t".into(),
            params: [
                ("codec", "int32_t"),
                ("level", "int32_t"),
                ("input", "const uint8_t *"),
                ("input_size", "uint64_t"),
                ("output", "uint8_t *"),
                ("output_capacity", "uint64_t"),
                ("out_written", "uint64_t *"),
                ("error", "isthmus_error *"),
            ]
            .map(|(n, t)| (n.to_owned(), t.to_owned()))
            .to_vec(),
        }
    );
    assert_eq!(
        functions["isthmus_version"],
        Signature {
            returns: "const char *".into(),
            params: vec![]
        }
    );
    assert_eq!(
        rust_type_to_c("*const *const u8"),
        "const uint8_t * const *"
    );
    assert_eq!(
        rust_type_to_c("*mut *mut ArrowArray"),
        "struct ArrowArray * *"
    );
    let structs = header_structs(&header());
    assert_eq!(structs[0].1, ["code", "message_length", "message"]);
    assert_eq!(structs[1].1[7], "release");
}
