package dev.isthmus.bindgen;

import dev.isthmus.bindgen.Model.Array;
import dev.isthmus.bindgen.Model.CType;
import dev.isthmus.bindgen.Model.Constant;
import dev.isthmus.bindgen.Model.Decl;
import dev.isthmus.bindgen.Model.Field;
import dev.isthmus.bindgen.Model.Function;
import dev.isthmus.bindgen.Model.FunctionType;
import dev.isthmus.bindgen.Model.Header;
import dev.isthmus.bindgen.Model.Param;
import dev.isthmus.bindgen.Model.Pointer;
import dev.isthmus.bindgen.Model.Scalar;
import dev.isthmus.bindgen.Model.Struct;
import dev.isthmus.bindgen.Model.StructRef;
import dev.isthmus.bindgen.Model.Typedef;
import dev.isthmus.bindgen.Preprocessor.Kind;
import dev.isthmus.bindgen.Preprocessor.Token;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Parses the declarations of a C API header: struct definitions and forward declarations,
 * typedefs of structs, scalars and pointers, and function prototypes. Types follow C's
 * declarator rules, so pointers, pointers to pointers, arrays and function pointers nest
 * as in C. Everything outside that subset is reported, never skipped.
 */
public final class Parser {

    private static final Set<String> BASIC_TYPE_WORDS =
            Set.of("void", "_Bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned");
    private static final Set<String> UNSUPPORTED_SPECIFIERS = Set.of(
            "static",
            "inline",
            "volatile",
            "register",
            "auto",
            "restrict",
            "__restrict",
            "_Atomic",
            "_Thread_local",
            "thread_local",
            "_Noreturn",
            "_Alignas",
            "__attribute__",
            "__declspec",
            "__extension__",
            "constexpr");

    private final String file;
    private final List<Token> tokens;
    private final Preprocessor.Result preprocessed;
    private final Map<String, Constant> constants = new HashMap<>();
    private final Map<String, CType> typedefs = new HashMap<>();
    private final Map<String, Struct> structs = new HashMap<>();
    private final Set<String> headerMembers = new HashSet<>();
    private final List<Decl> decls = new ArrayList<>();
    private int pos;

    private record Specifiers(CType type, boolean declaresStruct, int start, int end) {}

    /** A declarator's name and how it turns the declaration's base type into the declared type. */
    private record Declarator(String name, int line, UnaryOperator<CType> wrap) {}

    private Parser(String file, Preprocessor.Result preprocessed) {
        this.file = file;
        this.preprocessed = preprocessed;
        this.tokens = preprocessed.tokens();
        for (Constant c : preprocessed.constants()) {
            constants.put(c.name(), c);
            declareHeaderMember(c.name(), c.line());
            decls.add(c);
        }
    }

    /** Parses {@code text}, naming it {@code file} in error messages. */
    public static Header parse(String file, String text) {
        var parser = new Parser(file, Preprocessor.run(file, text));
        while (parser.peek().kind() != Kind.EOF) {
            parser.declaration();
        }
        List<Decl> inSourceOrder = parser.decls.stream()
                .sorted(Comparator.comparingInt(Decl::line))
                .toList();
        return new Header(Path.of(file).getFileName().toString(), inSourceOrder);
    }

    // ---------------------------------------------------------------- declarations

    private void declaration() {
        int start = pos;
        Token first = peek();
        if (acceptWord("typedef")) {
            typedef(start);
            return;
        }
        Specifiers specifiers = specifiers(true);
        if (accept(";")) {
            if (!specifiers.declaresStruct()) {
                throw error(first, "declaration declares nothing");
            }
            return;
        }
        Declarator d = declarator(false);
        if (!(d.wrap().apply(specifiers.type()) instanceof FunctionType type)) {
            throw error(
                    d.line(),
                    "global variable '" + d.name()
                            + "' is not supported (only functions, structs, typedefs and #define constants are)");
        }
        if (peekIs("{")) {
            throw error(peek(), "function definitions are not supported in a header");
        }
        if (peekIs(",")) {
            throw error(peek(), "declare one function per declaration");
        }
        String cText = text(start, pos);
        expect(";");
        checkSignature(type, "function '" + d.name() + "'", d.line());
        declareHeaderMember(d.name(), d.line());
        decls.add(new Function(d.name(), type, cText, d.line()));
    }

    private void typedef(int start) {
        Token first = peek();
        if (first.text().equals("struct") && peekAt(1).text().equals("{")) {
            pos += 2;
            List<Field> fields = structBody("<anonymous>");
            Token name = expectIdentifier("a typedef name");
            expect(";");
            declareTypeName(name.text(), name.line());
            Struct struct = Struct.layOut(
                    name.text(), fields, structText("typedef struct", fields) + " " + name.text(), first.line());
            typedefs.put(name.text(), struct);
            decls.add(struct);
            return;
        }
        Specifiers specifiers = specifiers(false);
        Declarator d = declarator(false);
        if (peekIs(",")) {
            throw error(peek(), "declare one name per typedef");
        }
        CType type = d.wrap().apply(specifiers.type());
        String cText = text(start, pos);
        expect(";");
        String unsupported = switch (type) {
            case Scalar s when s == Scalar.VOID -> "a typedef of void";
            case Pointer(FunctionType _) -> "a function-pointer typedef";
            case Array _ -> "an array typedef";
            case FunctionType _ -> "a function typedef";
            default -> null;
        };
        if (unsupported != null) {
            throw error(d.line(), unsupported + " ('" + d.name() + "') is not supported");
        }
        declareTypeName(d.name(), d.line());
        typedefs.put(d.name(), type);
        if (!(type instanceof StructRef(String tag) && tag.equals(d.name()))) {
            if (!(type instanceof StructRef || type instanceof Struct)) {
                declareHeaderMember(d.name(), d.line());
            }
            decls.add(new Typedef(d.name(), type, cText, d.line()));
        }
    }

    private void declareTypeName(String name, int line) {
        if (typedefs.containsKey(name) || preprocessed.typedefs().containsKey(name)) {
            throw error(line, "typedef '" + name + "' is declared twice");
        }
    }

    /** The header class holds constants, functions and scalar typedefs: their names must not collide. */
    private void declareHeaderMember(String name, int line) {
        if (!headerMembers.add(name)) {
            throw error(line, "'" + name + "' is declared twice");
        }
    }

    // ---------------------------------------------------------------- types

    private Specifiers specifiers(boolean externAllowed) {
        int start = pos;
        List<String> basic = new ArrayList<>();
        CType named = null;
        boolean declaresStruct = false;
        Token first = peek();
        while (peek().kind() == Kind.IDENT) {
            Token t = peek();
            String word = t.text();
            if (word.equals("const") || (externAllowed && word.equals("extern"))) {
                pos++;
            } else if (word.equals("union")) {
                throw error(t, "unions are not supported");
            } else if (word.equals("enum")) {
                throw error(t, "enums are not supported (use #define constants)");
            } else if (UNSUPPORTED_SPECIFIERS.contains(word) || word.equals("extern") || word.equals("typedef")) {
                throw error(t, "'" + word + "' is not supported here");
            } else if (word.equals("struct")) {
                requireNoType(named, basic, t);
                pos++;
                declaresStruct = true;
                named = structSpecifier(t);
            } else if (BASIC_TYPE_WORDS.contains(word)) {
                requireNoType(named, null, t);
                basic.add(word);
                pos++;
            } else if (named == null && basic.isEmpty()) {
                named = typeName(t);
                pos++;
            } else {
                break;
            }
        }
        if (named == null && basic.isEmpty()) {
            throw error(first, "expected a type, got '" + first.text() + "'");
        }
        return new Specifiers(named != null ? named : basicType(basic, first), declaresStruct, start, pos);
    }

    private void requireNoType(CType named, List<String> basic, Token t) {
        if (named != null || (basic != null && !basic.isEmpty())) {
            throw error(t, "'" + t.text() + "' cannot be combined with the type before it");
        }
    }

    private Scalar basicType(List<String> words, Token at) {
        List<String> rest = new ArrayList<>(words);
        boolean signedness = rest.remove("signed") | rest.remove("unsigned");
        if (rest.contains("signed") || rest.contains("unsigned")) {
            throw error(at, "conflicting signedness in '" + String.join(" ", words) + "'");
        }
        String key = String.join(" ", rest.stream().sorted().toList());
        Scalar scalar = switch (key) {
            case "", "int" -> signedness || key.equals("int") ? Scalar.INT : null;
            case "char" -> Scalar.CHAR;
            case "short", "int short" -> Scalar.SHORT;
            case "long", "int long" -> Scalar.LONG;
            case "long long", "int long long" -> Scalar.LONG_LONG;
            case "void" -> signedness ? null : Scalar.VOID;
            case "_Bool" -> signedness ? null : Scalar.BOOL;
            case "float" -> signedness ? null : Scalar.FLOAT;
            case "double" -> signedness ? null : Scalar.DOUBLE;
            case "double long" -> throw error(at, "long double is not supported");
            default -> null;
        };
        if (scalar == null) {
            throw error(at, "invalid type '" + String.join(" ", words) + "'");
        }
        return scalar;
    }

    private CType typeName(Token t) {
        String name = t.text();
        CType type = typedefs.get(name);
        if (type == null) {
            type = preprocessed.typedefs().get(name);
        }
        if (type != null) {
            return type;
        }
        for (var header : Preprocessor.SYSTEM_HEADERS.entrySet()) {
            if (header.getValue().containsKey(name)) {
                throw error(
                        t,
                        "unknown type name '" + name + "' (it is declared by <" + header.getKey()
                                + ">, which this header does not include)");
            }
        }
        if (preprocessed.macroNames().contains(name)) {
            throw error(t, "macro '" + name + "' used in a declaration: macro expansion is not supported");
        }
        throw error(t, "unknown type name '" + name + "'");
    }

    /** After {@code struct}: a reference to a tag, a forward declaration, or a definition. */
    private CType structSpecifier(Token structToken) {
        Token tagToken = peek();
        if (tagToken.kind() != Kind.IDENT) {
            throw error(
                    tagToken,
                    peekIs("{")
                            ? "an anonymous struct is only supported as 'typedef struct { ... } name;'"
                            : "expected a struct tag after 'struct'");
        }
        String tag = tagToken.text();
        pos++;
        if (peekIs("{")) {
            if (structs.containsKey(tag)) {
                throw error(tagToken, "struct " + tag + " is defined twice");
            }
            pos++;
            List<Field> fields = structBody(tag);
            Struct struct = Struct.layOut(tag, fields, structText("struct " + tag, fields), structToken.line());
            structs.put(tag, struct);
            decls.add(struct);
        }
        return new StructRef(tag);
    }

    /** After a struct's opening brace, up to and including its closing brace. */
    private List<Field> structBody(String structName) {
        List<Field> fields = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int line = peek().line();
        while (!accept("}")) {
            if (peek().kind() == Kind.EOF) {
                throw error(line, "struct " + structName + " is not closed");
            }
            Specifiers specifiers = specifiers(false);
            if (peekIs(";")) {
                throw error(peek(), "anonymous members are not supported in struct " + structName);
            }
            do {
                int declaratorStart = pos;
                Declarator d = declarator(false);
                if (peekIs(":")) {
                    throw error(
                            peek(),
                            "bitfields are not supported (field '" + d.name() + "' of struct " + structName + ")");
                }
                if (!names.add(d.name())) {
                    throw error(d.line(), "struct " + structName + " has two fields named '" + d.name() + "'");
                }
                CType type = fieldType(d.wrap().apply(specifiers.type()), d, structName);
                String cText = text(specifiers.start(), specifiers.end()) + " " + text(declaratorStart, pos);
                fields.add(new Field(d.name(), type, 0, cText));
            } while (accept(","));
            expect(";");
        }
        if (fields.isEmpty()) {
            throw error(line, "empty struct " + structName + " is not supported");
        }
        return fields;
    }

    private CType fieldType(CType type, Declarator d, String structName) {
        String what = "field '" + d.name() + "' of struct " + structName;
        return switch (type) {
            case Scalar s when s == Scalar.VOID -> throw error(d.line(), what + " has type void");
            case Pointer(FunctionType f) -> {
                checkSignature(f, "function-pointer " + what, d.line());
                if (d.name().equals(structName)) {
                    throw error(d.line(), what + " cannot share its struct's name (it becomes a nested class)");
                }
                yield type;
            }
            case Array(CType element, long length) -> {
                if (length <= 0) {
                    throw error(d.line(), what + ": arrays without a positive length are not supported");
                }
                if (element instanceof Array) {
                    throw error(d.line(), what + ": multi-dimensional arrays are not supported");
                }
                if (!(element instanceof Scalar || element instanceof Pointer)) {
                    throw error(d.line(), what + ": arrays of structs are not supported");
                }
                yield type;
            }
            case StructRef(String tag) -> {
                Struct struct = structs.get(tag);
                if (struct == null) {
                    throw error(d.line(), what + " has incomplete type struct " + tag);
                }
                yield struct;
            }
            case FunctionType _ -> throw error(d.line(), what + " has a function type (did you mean a pointer?)");
            default -> type;
        };
    }

    /**
     * Restricts signatures to what maps onto a plain downcall: scalars and pointers, no struct
     * by value, no callback parameters (jextract would generate an extra class for each).
     */
    private void checkSignature(FunctionType type, String what, int line) {
        switch (type.returnType()) {
            case Struct _, StructRef _ ->
                throw error(line, what + " returns a struct by value, which is not supported");
            default -> {}
        }
        for (int i = 0; i < type.params().size(); i++) {
            Param p = type.params().get(i);
            String param = "parameter " + (p.name() != null ? "'" + p.name() + "'" : "#" + (i + 1)) + " of " + what;
            switch (p.type()) {
                case Scalar s when s == Scalar.VOID -> throw error(line, param + " has type void");
                case Struct _, StructRef _ ->
                    throw error(line, param + " passes a struct by value, which is not supported");
                case Pointer(FunctionType _) ->
                    throw error(
                            line,
                            param
                                    + " is a function pointer, which is not supported (use a struct field of function-pointer type)");
                default -> {}
            }
        }
    }

    // ---------------------------------------------------------------- declarators

    private Declarator declarator(boolean abstractAllowed) {
        int pointers = 0;
        while (accept("*")) {
            pointers++;
            while (acceptWord("const")) {
                // a const pointer has the same layout as any other
            }
        }
        Declarator inner = null;
        String name = null;
        int line = peek().line();
        if (peekIs("(") && peekAt(1).text().equals("*")) {
            pos++;
            inner = declarator(abstractAllowed);
            expect(")");
        } else if (peek().kind() == Kind.IDENT) {
            if (UNSUPPORTED_SPECIFIERS.contains(peek().text())) {
                throw error(peek(), "'" + peek().text() + "' is not supported here");
            }
            name = next().text();
        } else if (!abstractAllowed) {
            throw error(peek(), "expected a name, got '" + peek().text() + "'");
        }
        UnaryOperator<CType> suffix;
        if (peekIs("(")) {
            List<Param> params = parameters();
            suffix = t -> new FunctionType(t, params);
        } else {
            List<Long> lengths = new ArrayList<>();
            while (accept("[")) {
                lengths.add(arrayLength());
                expect("]");
            }
            suffix = t -> {
                for (int i = lengths.size() - 1; i >= 0; i--) {
                    t = new Array(t, lengths.get(i));
                }
                return t;
            };
        }
        int pointerCount = pointers;
        Declarator in = inner;
        UnaryOperator<CType> wrap = base -> {
            CType t = base;
            for (int i = 0; i < pointerCount; i++) {
                t = new Pointer(t);
            }
            t = suffix.apply(t);
            return in == null ? t : in.wrap().apply(t);
        };
        return in == null ? new Declarator(name, line, wrap) : new Declarator(in.name(), in.line(), wrap);
    }

    /** Zero stands for an omitted length; only a parameter may have one (it decays to a pointer). */
    private long arrayLength() {
        Token t = peek();
        if (peekIs("]")) {
            return 0;
        }
        pos++;
        if (!peekIs("]")) {
            throw error(t, "an array length must be an integer literal or an integer #define constant");
        }
        if (t.kind() == Kind.NUMBER) {
            try {
                return Long.decode(t.text().replaceAll("[uUlL]+$", ""));
            } catch (NumberFormatException e) {
                throw error(t, "malformed array length '" + t.text() + "'");
            }
        }
        Constant c = constants.get(t.text());
        if (t.kind() != Kind.IDENT || c == null || c.line() >= t.line()) {
            throw error(
                    t,
                    "an array length must be an integer literal or an integer #define constant defined"
                            + " before it, got '" + t.text() + "'");
        }
        return c.value();
    }

    private List<Param> parameters() {
        Token open = expect("(");
        if (peekIs(")")) {
            throw error(open, "an empty parameter list declares no prototype in C: write (void)");
        }
        if (peek().text().equals("void") && peekAt(1).text().equals(")")) {
            pos += 2;
            return List.of();
        }
        List<Param> params = new ArrayList<>();
        do {
            if (peekIs("...")) {
                throw error(peek(), "variadic functions are not supported");
            }
            Specifiers specifiers = specifiers(false);
            Declarator d = declarator(true);
            CType type = switch (d.wrap().apply(specifiers.type())) {
                case Array a -> new Pointer(a.element());
                case FunctionType f -> new Pointer(f);
                case CType t -> t;
            };
            params.add(new Param(d.name(), type));
        } while (accept(","));
        expect(")");
        return List.copyOf(params);
    }

    // ---------------------------------------------------------------- tokens

    private Token peek() {
        return tokens.get(pos);
    }

    private Token peekAt(int ahead) {
        return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
    }

    private Token next() {
        return tokens.get(pos++);
    }

    private boolean peekIs(String punct) {
        return peek().kind() == Kind.PUNCT && peek().text().equals(punct);
    }

    private boolean accept(String punct) {
        if (peekIs(punct)) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean acceptWord(String word) {
        if (peek().kind() == Kind.IDENT && peek().text().equals(word)) {
            pos++;
            return true;
        }
        return false;
    }

    private Token expect(String punct) {
        if (!peekIs(punct)) {
            throw error(peek(), "expected '" + punct + "', got '" + peek().text() + "'");
        }
        return next();
    }

    private Token expectIdentifier(String what) {
        if (peek().kind() != Kind.IDENT) {
            throw error(peek(), "expected " + what + ", got '" + peek().text() + "'");
        }
        return next();
    }

    /** The C source of tokens [from, to), spaced the way C declarations are usually written. */
    private String text(int from, int to) {
        var sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            String t = tokens.get(i).text();
            if (i > from) {
                String prev = tokens.get(i - 1).text();
                boolean glued = prev.equals("(")
                        || prev.equals("[")
                        || t.equals(")")
                        || t.equals("]")
                        || t.equals(",")
                        || t.equals(";")
                        || t.equals("[")
                        || (prev.equals("*") && (tokens.get(i).kind() == Kind.IDENT || t.equals("*")))
                        || (t.equals("(") && !tokens.get(i + 1).text().equals("*"));
                if (!glued) {
                    sb.append(' ');
                }
            }
            sb.append(t);
        }
        return sb.toString();
    }

    private static String structText(String head, List<Field> fields) {
        var sb = new StringBuilder(head).append(" {\n");
        for (Field f : fields) {
            sb.append("    ").append(f.cText()).append(";\n");
        }
        return sb.append("}").toString();
    }

    private BindgenException error(Token at, String message) {
        return error(at.line(), message);
    }

    private BindgenException error(int line, String message) {
        return new BindgenException(file, line, message);
    }
}
