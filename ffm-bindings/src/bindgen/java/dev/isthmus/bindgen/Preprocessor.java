package dev.isthmus.bindgen;

import dev.isthmus.bindgen.Model.Constant;
import dev.isthmus.bindgen.Model.Scalar;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strips comments, evaluates the small preprocessor subset a self-contained C API header
 * needs (include guards, {@code #ifdef __cplusplus}, integer {@code #define}s, the standard
 * integer headers) and splits what remains into tokens. Anything else is an error: a header
 * construct silently skipped here would silently change the ABI the bindings describe.
 */
final class Preprocessor {

    enum Kind {
        IDENT,
        NUMBER,
        PUNCT,
        EOF
    }

    record Token(Kind kind, String text, int line) {}

    record Result(List<Token> tokens, List<Constant> constants, Set<String> macroNames, Map<String, Scalar> typedefs) {}

    /** The typedefs each known system header declares, as glibc does on x86_64 Linux. */
    static final Map<String, Map<String, Scalar>> SYSTEM_HEADERS = Map.of(
            "stdint.h",
                    Map.of(
                            "int8_t",
                            Scalar.CHAR,
                            "uint8_t",
                            Scalar.CHAR,
                            "int16_t",
                            Scalar.SHORT,
                            "uint16_t",
                            Scalar.SHORT,
                            "int32_t",
                            Scalar.INT,
                            "uint32_t",
                            Scalar.INT,
                            "int64_t",
                            Scalar.LONG,
                            "uint64_t",
                            Scalar.LONG,
                            "intptr_t",
                            Scalar.LONG,
                            "uintptr_t",
                            Scalar.LONG),
            "stddef.h", Map.of("size_t", Scalar.LONG, "ptrdiff_t", Scalar.LONG),
            "stdbool.h", Map.of("bool", Scalar.BOOL));

    private static final Pattern DEFINE = Pattern.compile("([A-Za-z_]\\w*)(\\(?)\\s*(.*)");
    private static final Pattern INTEGER =
            Pattern.compile("(?i)(0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)(u|ul|ull|l|ll|lu|llu)?");
    private static final String PUNCTUATION = "{}()[];,*:=<>+-/&|^!~?.%";

    private final String file;
    private final List<Token> tokens = new ArrayList<>();
    private final List<Constant> constants = new ArrayList<>();
    private final Set<String> macroNames = new LinkedHashSet<>();
    private final Map<String, Scalar> typedefs = new LinkedHashMap<>();
    private final Deque<Conditional> conditionals = new ArrayDeque<>();

    private record Conditional(boolean parentActive, boolean taken, boolean inElse, int line) {
        boolean active() {
            return parentActive && (inElse != taken);
        }
    }

    private Preprocessor(String file) {
        this.file = file;
    }

    static Result run(String file, String text) {
        var p = new Preprocessor(file);
        String[] lines = stripComments(file, text).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            p.line(lines[i], i + 1);
        }
        if (!p.conditionals.isEmpty()) {
            throw new BindgenException(file, p.conditionals.peek().line(), "unterminated conditional directive");
        }
        p.tokens.add(new Token(Kind.EOF, "end of file", lines.length));
        return new Result(
                List.copyOf(p.tokens), List.copyOf(p.constants), Set.copyOf(p.macroNames), Map.copyOf(p.typedefs));
    }

    /** Replaces each comment by a space, keeping its newlines so that line numbers stay right. */
    static String stripComments(String file, String text) {
        var out = new StringBuilder(text.length());
        int line = 1;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '/' && i + 1 < text.length() && text.charAt(i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new BindgenException(file, line, "unterminated comment");
                }
                out.append(' ');
                for (int j = i; j < end; j++) {
                    if (text.charAt(j) == '\n') {
                        out.append('\n');
                        line++;
                    }
                }
                i = end + 1;
            } else if (c == '/' && i + 1 < text.length() && text.charAt(i + 1) == '/') {
                while (i + 1 < text.length() && text.charAt(i + 1) != '\n') {
                    i++;
                }
                out.append(' ');
            } else if (c == '"' || c == '\'') {
                // A literal can hold "/*"; copy it whole (it stops at the end of its line at the latest).
                out.append(c);
                while (i + 1 < text.length() && text.charAt(i + 1) != '\n') {
                    char d = text.charAt(++i);
                    out.append(d);
                    if (d == '\\' && i + 1 < text.length() && text.charAt(i + 1) != '\n') {
                        out.append(text.charAt(++i));
                    } else if (d == c) {
                        break;
                    }
                }
            } else {
                if (c == '\n') {
                    line++;
                }
                out.append(c);
            }
        }
        return out.toString();
    }

    private boolean active() {
        return conditionals.isEmpty() || conditionals.peek().active();
    }

    private void line(String text, int line) {
        String trimmed = text.strip();
        if (trimmed.endsWith("\\") && (active() || trimmed.startsWith("#"))) {
            throw new BindgenException(file, line, "line continuations are not supported");
        }
        if (trimmed.startsWith("#")) {
            directive(trimmed.substring(1).strip(), line);
        } else if (active()) {
            tokenize(text, line);
        }
    }

    private void directive(String text, int line) {
        int nameEnd = 0;
        while (nameEnd < text.length() && Character.isLetter(text.charAt(nameEnd))) {
            nameEnd++;
        }
        String name = text.substring(0, nameEnd);
        String rest = text.substring(nameEnd).strip();
        switch (name) {
            case "ifdef", "ifndef" -> {
                boolean defined = macroNames.contains(identifier(rest, "#" + name, line));
                conditionals.push(new Conditional(active(), defined == name.equals("ifdef"), false, line));
            }
            case "else" -> {
                Conditional c = conditionals.peek();
                if (c == null || c.inElse()) {
                    throw new BindgenException(file, line, "#else without a matching #ifdef/#ifndef");
                }
                conditionals.pop();
                conditionals.push(new Conditional(c.parentActive(), c.taken(), true, c.line()));
            }
            case "endif" -> {
                if (conditionals.isEmpty()) {
                    throw new BindgenException(file, line, "#endif without a matching #ifdef/#ifndef");
                }
                conditionals.pop();
            }
            case "elif", "elifdef", "elifndef" -> {
                if (conditionals.isEmpty() || conditionals.peek().parentActive()) {
                    throw new BindgenException(file, line, "#" + name + " is not supported (use #else)");
                }
            }
            case "if" -> {
                if (active()) {
                    throw new BindgenException(file, line, "#if is not supported (only #ifdef and #ifndef)");
                }
                conditionals.push(new Conditional(false, false, false, line));
            }
            default -> {
                if (active()) {
                    activeDirective(name, rest, line);
                }
            }
        }
    }

    private void activeDirective(String name, String rest, int line) {
        switch (name) {
            case "define" -> define(rest, line);
            case "include" -> include(rest, line);
            case "pragma" -> {
                if (!rest.equals("once")) {
                    throw new BindgenException(file, line, "#pragma " + rest + " is not supported (only #pragma once)");
                }
            }
            default -> throw new BindgenException(file, line, "#" + name + " is not supported");
        }
    }

    private String identifier(String text, String directive, int line) {
        if (!text.matches("[A-Za-z_]\\w*")) {
            throw new BindgenException(file, line, directive + " expects a single macro name, got '" + text + "'");
        }
        return text;
    }

    private void define(String text, int line) {
        Matcher m = DEFINE.matcher(text);
        if (!m.matches()) {
            throw new BindgenException(file, line, "malformed #define");
        }
        String name = m.group(1);
        if (!m.group(2).isEmpty()) {
            throw new BindgenException(file, line, "function-like macro " + name + " is not supported");
        }
        if (!macroNames.add(name)) {
            throw new BindgenException(file, line, "macro " + name + " is defined twice");
        }
        String body = m.group(3).strip();
        if (!body.isEmpty()) {
            constants.add(integerConstant(name, body, line));
        }
    }

    /**
     * Types the literal as C does on LP64 (decimal: int, long; octal/hex also try the unsigned
     * types; suffixes narrow the candidates), since that decides between a Java int and long.
     */
    private Constant integerConstant(String name, String body, int line) {
        String expr = body;
        if (expr.startsWith("(") && expr.endsWith(")")) {
            expr = expr.substring(1, expr.length() - 1).strip();
        }
        boolean negative = expr.startsWith("-");
        if (negative) {
            expr = expr.substring(1).strip();
        }
        Matcher m = INTEGER.matcher(expr);
        if (!m.matches()) {
            throw new BindgenException(
                    file,
                    line,
                    "#define " + name + " " + body
                            + " is not supported: only integer literals (optionally negated or parenthesized) are");
        }
        String digits = m.group(1).toLowerCase();
        String suffix = m.group(2) == null ? "" : m.group(2).toLowerCase();
        boolean decimal = !digits.startsWith("0") || digits.equals("0");
        BigInteger value = digits.startsWith("0x")
                ? new BigInteger(digits.substring(2), 16)
                : decimal ? new BigInteger(digits) : new BigInteger(digits, 8);
        boolean unsignedSuffix = suffix.contains("u");
        boolean longSuffix = suffix.contains("l");
        int bits = 0;
        boolean unsigned = false;
        for (int candidateBits : new int[] {32, 64}) {
            if (candidateBits == 32 && longSuffix) {
                continue;
            }
            for (boolean candidateUnsigned : new boolean[] {false, true}) {
                if ((candidateUnsigned && !unsignedSuffix && decimal) || (!candidateUnsigned && unsignedSuffix)) {
                    continue;
                }
                BigInteger max = BigInteger.ONE.shiftLeft(candidateUnsigned ? candidateBits : candidateBits - 1);
                if (bits == 0 && value.compareTo(max) < 0) {
                    bits = candidateBits;
                    unsigned = candidateUnsigned;
                }
            }
        }
        if (bits == 0) {
            throw new BindgenException(file, line, "integer literal " + body + " is too large for any C integer type");
        }
        if (negative) {
            value = value.negate();
            if (unsigned) {
                value = value.mod(BigInteger.ONE.shiftLeft(bits));
            }
        }
        return new Constant(name, value.longValue(), bits == 64, "#define " + name + " " + body, line);
    }

    private void include(String text, int line) {
        String header = text.startsWith("<") && text.endsWith(">")
                ? text.substring(1, text.length() - 1).strip()
                : null;
        Map<String, Scalar> declared = header == null ? null : SYSTEM_HEADERS.get(header);
        if (declared == null) {
            throw new BindgenException(
                    file, line, "#include " + text + " is not supported (known: <stdint.h>, <stddef.h>, <stdbool.h>)");
        }
        typedefs.putAll(declared);
    }

    private void tokenize(String text, int line) {
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            int start = i;
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '_' || isAsciiLetter(c)) {
                do {
                    i++;
                } while (i < text.length() && isIdentifierPart(text.charAt(i)));
                tokens.add(new Token(Kind.IDENT, text.substring(start, i), line));
            } else if (c >= '0' && c <= '9') {
                do {
                    i++;
                } while (i < text.length() && isIdentifierPart(text.charAt(i)));
                tokens.add(new Token(Kind.NUMBER, text.substring(start, i), line));
            } else if (text.startsWith("...", i)) {
                i += 3;
                tokens.add(new Token(Kind.PUNCT, "...", line));
            } else if (PUNCTUATION.indexOf(c) >= 0) {
                i++;
                tokens.add(new Token(Kind.PUNCT, String.valueOf(c), line));
            } else if (c == '"' || c == '\'') {
                throw new BindgenException(
                        file,
                        line,
                        "string and character literals are not supported"
                                + " (an extern \"C\" block must sit inside #ifdef __cplusplus)");
            } else {
                throw new BindgenException(file, line, "unexpected character '" + c + "'");
            }
        }
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isIdentifierPart(char c) {
        return c == '_' || isAsciiLetter(c) || (c >= '0' && c <= '9');
    }
}
