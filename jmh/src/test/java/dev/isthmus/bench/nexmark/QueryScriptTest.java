package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueryScriptTest {
    @Test
    void splitsAtSemicolonsThatEndALine() {
        assertThat(QueryScript.split("""
                -- a comment; not a statement
                CREATE VIEW v AS SELECT ';' AS a, `b;` -- trailing; comment
                  FROM t;  -- after the end
                SELECT 1; SELECT 2;
                /* kept; */ SELECT "x;
                y" FROM u
                """))
                .containsExactly(
                        "CREATE VIEW v AS SELECT ';' AS a, `b;` \n  FROM t",
                        "SELECT 1; SELECT 2",
                        "/* kept; */ SELECT \"x;\ny\" FROM u");
    }

    @Test
    void keepsDoubledQuotesInsideLiterals() {
        assertThat(QueryScript.split("SELECT 'it''s;'\n;\n")).containsExactly("SELECT 'it''s;'");
    }

    @Test
    void refusesUnterminatedQuotesAndComments() {
        assertThatThrownBy(() -> QueryScript.split("SELECT 'x;\n")).hasMessageContaining("Unterminated ' quote");
        assertThatThrownBy(() -> QueryScript.split("SELECT /* x;\n")).hasMessageContaining("Unterminated /*");
    }

    @Test
    void takesTheSinkApart() {
        QueryScript script = QueryScript.parse("""
                -- q
                CREATE FUNCTION f AS 'F';
                CREATE TABLE nexmark_q1 (
                  a BIGINT,
                  `day` DECIMAL(23, 3), -- a comment
                  c VARCHAR
                ) WITH ('connector' = 'blackhole');
                CREATE VIEW nexmark_q10 AS SELECT 1;
                INSERT INTO nexmark_q1
                SELECT a, b, c FROM nexmark_q1x;
                """, "nexmark_q1", List.of("day", "a"));
        assertThat(script.setupStatements())
                .containsExactly("CREATE FUNCTION f AS 'F'", "CREATE VIEW nexmark_q10 AS SELECT 1");
        // The quoted `day` is a column by its unquoted name: the key names it so.
        assertThat(script.sinkSchema())
                .isEqualTo(
                        "a BIGINT,\n  `day` DECIMAL(23, 3), \n  c VARCHAR,\n  PRIMARY KEY (`day`, `a`) NOT ENFORCED");
        assertThat(script.insert("cat.db.`out`"))
                .isEqualTo("INSERT INTO cat.db.`out`\nSELECT a, b, c FROM nexmark_q1x");
    }

    @Test
    void appendOnlySchemaIsTheColumns() {
        QueryScript script = QueryScript.parse(
                "create temporary table `nexmark_q2`(a INT) with ();\ninsert into nexmark_q2(a) select 1;",
                "nexmark_q2",
                List.of());
        assertThat(script.sinkSchema()).isEqualTo("a INT");
        assertThat(script.insert("x")).isEqualTo("insert into x(a) select 1");
    }

    @Test
    void refusesScriptsItCannotTakeApart() {
        String sink = "CREATE TABLE s (a INT) WITH ();\n";
        assertThatThrownBy(() -> QueryScript.parse(sink, "s", List.of())).hasMessageContaining("one INSERT INTO s");
        assertThatThrownBy(() -> QueryScript.parse("INSERT INTO s SELECT 1;\n", "s", List.of()))
                .hasMessageContaining("one CREATE TABLE s");
        assertThatThrownBy(() -> QueryScript.parse(sink + "INSERT INTO s SELECT 1;\nSELECT 2;", "s", List.of()))
                .hasMessageContaining("must be the last");
        assertThatThrownBy(() -> QueryScript.parse(sink + sink + "INSERT INTO s SELECT 1;", "s", List.of()))
                .hasMessageContaining("More than one");
        assertThatThrownBy(() -> QueryScript.parse(sink + "INSERT INTO s SELECT 1;", "s", List.of("b")))
                .hasMessageContaining("Upsert key b is not a column");
        assertThatThrownBy(() -> QueryScript.parse(
                        "CREATE TABLE s (a INT, PRIMARY KEY (a) NOT ENFORCED);\nINSERT INTO s SELECT 1;",
                        "s",
                        List.of()))
                .hasMessageContaining("adds keys itself");
    }
}
