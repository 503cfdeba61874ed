package dev.isthmus.bench.nexmark;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A Nexmark query's SQL taken apart for the harness, which creates the output table itself (an
 * Iceberg table with the query's upsert keys) instead of upstream's {@code blackhole} sink.
 *
 * <p>The script is split into statements at each {@code ;} that ends a line, outside string
 * literals, quoted identifiers and comments; {@code --} comments are dropped and block comments
 * (hints among them) kept. Exactly one statement must be the sink's
 * {@code CREATE [TEMPORARY] TABLE nexmark_qN (<columns>) ...} and exactly one, the last, the
 * {@code INSERT INTO nexmark_qN ...}. Everything else is a setup statement (q12's view, q13's side
 * input, q14's function), to run in order before the insert; none of them refers to the sink, so
 * they may run before or after it is created.
 */
final class QueryScript {
    private static final Pattern CONSTRAINT = Pattern.compile("(?is)(PRIMARY\\s+KEY|CONSTRAINT|WATERMARK)\\b.*");

    private final List<String> setupStatements;
    private final String sinkColumns;
    private final List<String> upsertKeys;
    private final String insertHead;
    private final String insertTail;

    private QueryScript(
            List<String> setupStatements,
            String sinkColumns,
            List<String> upsertKeys,
            String insertHead,
            String insertTail) {
        this.setupStatements = List.copyOf(setupStatements);
        this.sinkColumns = sinkColumns;
        this.upsertKeys = List.copyOf(upsertKeys);
        this.insertHead = insertHead;
        this.insertTail = insertTail;
        List<String> sinkColumnNames = columnNames(sinkColumns);
        for (String key : upsertKeys) {
            if (!sinkColumnNames.contains(key)) {
                throw new IllegalArgumentException(
                        "Upsert key " + key + " is not a column of the sink " + sinkColumnNames);
            }
        }
    }

    /** The script of {@code query}, its sink {@link NexmarkQuery#sinkTable()}. */
    static QueryScript parse(NexmarkQuery query) {
        return parse(query.sql(), query.sinkTable(), query.upsertKeys());
    }

    /** The script of a sink {@code sinkTable} whose columns include {@code upsertKeys}. */
    static QueryScript parse(String script, String sinkTable, List<String> upsertKeys) {
        String name = "`?" + Pattern.quote(sinkTable) + "`?";
        Pattern create = Pattern.compile(
                "(?is)CREATE\\s+(TEMPORARY\\s+)?TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?" + name + "\\s*(\\().*");
        Pattern insert = Pattern.compile("(?is)(INSERT\\s+INTO\\s+)" + name + "(?=[\\s(])(.*)");
        List<String> statements = split(script);
        List<String> setup = new ArrayList<>();
        String columns = null;
        Matcher insertMatch = null;
        for (int i = 0; i < statements.size(); i++) {
            String statement = statements.get(i);
            Matcher createMatch = create.matcher(statement);
            Matcher m = insert.matcher(statement);
            if (createMatch.matches()) {
                if (columns != null) {
                    throw new IllegalArgumentException("More than one CREATE TABLE " + sinkTable);
                }
                int open = createMatch.start(3);
                columns = statement
                        .substring(open + 1, closingParenthesis(statement, open))
                        .strip();
            } else if (m.matches()) {
                if (i != statements.size() - 1) {
                    throw new IllegalArgumentException("INSERT INTO " + sinkTable + " must be the last statement");
                }
                insertMatch = m;
            } else {
                setup.add(statement);
            }
        }
        if (columns == null || insertMatch == null) {
            throw new IllegalArgumentException("The script needs one CREATE TABLE " + sinkTable
                    + " (...) and one INSERT INTO " + sinkTable + "; its statements are " + statements);
        }
        return new QueryScript(setup, columns, upsertKeys, insertMatch.group(1), insertMatch.group(2));
    }

    /** The statements to run, in order, before the insert. */
    List<String> setupStatements() {
        return setupStatements;
    }

    /**
     * The text between the parentheses of the sink's CREATE TABLE (its column definitions as
     * written, less comments) followed, for an updating query, by
     * {@code PRIMARY KEY (<upsert keys>) NOT ENFORCED}: a schema for a Flink CREATE TABLE.
     */
    String sinkSchema() {
        if (upsertKeys.isEmpty()) {
            return sinkColumns;
        }
        return sinkColumns + ",\n  PRIMARY KEY ("
                + upsertKeys.stream().map(k -> "`" + k + "`").collect(Collectors.joining(", ")) + ") NOT ENFORCED";
    }

    /** The INSERT statement writing into {@code targetTable} (a Flink table path, quoted as needed) instead. */
    String insert(String targetTable) {
        return insertHead + targetTable + insertTail;
    }

    /** The statements of {@code script}, stripped, without their {@code --} comments and terminators. */
    static List<String> split(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int n = script.length();
        int i = 0;
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                i = lineEnd(script, i);
            } else if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int end = script.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException("Unterminated /* comment at offset " + i);
                }
                current.append(script, i, end + 2);
                i = end + 2;
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = quoteEnd(script, i);
                current.append(script, i, end);
                i = end;
            } else if (c == ';' && endsLine(script, i + 1)) {
                add(statements, current);
                current.setLength(0);
                i++;
            } else {
                current.append(c);
                i++;
            }
        }
        add(statements, current);
        return statements;
    }

    private static void add(List<String> statements, StringBuilder statement) {
        String text = statement.toString().strip();
        if (!text.isEmpty()) {
            statements.add(text);
        }
    }

    /** Whether only blanks, or blanks and a {@code --} comment, follow {@code from} on its line. */
    private static boolean endsLine(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n') {
                return true;
            }
            if (c == '-' && i + 1 < s.length() && s.charAt(i + 1) == '-') {
                return true;
            }
            if (!Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }

    private static int lineEnd(String s, int from) {
        int end = s.indexOf('\n', from);
        return end < 0 ? s.length() : end;
    }

    /** The offset after the quote opened at {@code open}; a doubled quote character is part of it. */
    private static int quoteEnd(String s, int open) {
        char quote = s.charAt(open);
        int i = open + 1;
        while (i < s.length()) {
            if (s.charAt(i) == quote) {
                if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw new IllegalArgumentException("Unterminated " + quote + " quote at offset " + open);
    }

    private static int closingParenthesis(String s, int open) {
        int depth = 0;
        int i = open;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                i = quoteEnd(s, i);
                continue;
            }
            if (c == '/' && s.startsWith("/*", i)) {
                i = s.indexOf("*/", i + 2) + 2;
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
            i++;
        }
        throw new IllegalArgumentException("No ')' closes the '(' at offset " + open + " of " + s);
    }

    /** The names of the column definitions {@code columns}, separated by top-level commas. */
    private static List<String> columnNames(String columns) {
        List<String> names = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= columns.length(); i++) {
            char c = i < columns.length() ? columns.charAt(i) : ',';
            if (c == '\'' || c == '"' || c == '`') {
                i = quoteEnd(columns, i) - 1;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                names.add(columnName(columns.substring(start, i).strip()));
                start = i + 1;
            }
        }
        return List.copyOf(names);
    }

    private static String columnName(String definition) {
        if (CONSTRAINT.matcher(definition).matches()) {
            throw new IllegalArgumentException("The sink declares '" + definition + "'; the harness adds keys itself");
        }
        if (definition.startsWith("`")) {
            return definition.substring(1, quoteEnd(definition, 0) - 1).replace("``", "`");
        }
        return definition.split("\\s+", 2)[0];
    }
}
