package example;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A Flink job's main that runs a file of SQL statements, as a SQL client would, for a cluster
 * where no SQL client is installed: {@code flink run -c example.SqlScript job.jar batch|streaming
 * script.sql [name=value ...]}. Each {@code ${name}} in the script is replaced by its value.
 * Statements end with a {@code ;} at the end of a line; lines starting with {@code --} are
 * comments.
 *
 * <p>In batch mode every statement completes before the next one starts, and a query's rows are
 * printed to standard output one a line as {@code row <Row.toString()>}. In streaming mode an
 * {@code INSERT} is submitted and left running (the main returns once the last one is
 * submitted). Each submitted job's id is printed as {@code job <id>}, for the REST API.
 */
public final class SqlScript {
    private SqlScript() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || !(args[0].equals("batch") || args[0].equals("streaming"))) {
            throw new IllegalArgumentException("usage: SqlScript batch|streaming script.sql [name=value ...]");
        }
        boolean batch = args[0].equals("batch");
        Map<String, String> variables = new TreeMap<>();
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not name=value: " + args[i]);
            }
            variables.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }

        TableEnvironment sql = TableEnvironment.create(
                batch ? EnvironmentSettings.inBatchMode() : EnvironmentSettings.inStreamingMode());
        for (String statement : statements(Files.readString(Path.of(args[1])), variables)) {
            TableResult result = sql.executeSql(statement);
            result.getJobClient().ifPresent(job -> System.out.println("job " + job.getJobID()));
            String verb = statement.split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
            if (verb.equals("SELECT") || verb.equals("WITH")) {
                try (CloseableIterator<Row> rows = result.collect()) {
                    rows.forEachRemaining(row -> System.out.println("row " + row));
                }
            } else if (batch || result.getJobClient().isEmpty()) {
                result.await();
            }
        }
    }

    static List<String> statements(String script, Map<String, String> variables) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n", -1)) {
            if (line.strip().startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                statements.add(substitute(current.toString().strip().replaceFirst(";$", ""), variables));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalArgumentException("the script's last statement has no ';': " + current);
        }
        return statements;
    }

    private static String substitute(String statement, Map<String, String> variables) {
        String result = statement;
        for (Map.Entry<String, String> variable : variables.entrySet()) {
            result = result.replace("${" + variable.getKey() + "}", variable.getValue());
        }
        if (result.contains("${")) {
            throw new IllegalArgumentException("a variable has no value: " + result);
        }
        return result;
    }
}
