package dev.isthmus.bench.nexmark;

import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.FunctionHint;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * Nexmark q14's {@code count_char(s, c)}: how often the character {@code c} occurs in {@code s}. The
 * upstream UDF ships in the nexmark jar, which the benchmarks do not depend on, so it is
 * reimplemented here. Like upstream, a null {@code s} counts 0; a null or empty {@code c} counts 0
 * too (upstream fails on those). Upstream compares UTF-8 bytes and this compares UTF-16 chars: the
 * same count for the ASCII character q14 asks for.
 *
 * <p>The hint names the arguments because Flink otherwise reads their names from the class file
 * with an ASM that cannot read Java 25's.
 */
public final class CountChar extends ScalarFunction {
    @FunctionHint(
            arguments = {
                @ArgumentHint(name = "s", type = @DataTypeHint("STRING")),
                @ArgumentHint(name = "character", type = @DataTypeHint("STRING"))
            },
            output = @DataTypeHint("BIGINT NOT NULL"))
    public long eval(String s, String character) {
        if (s == null || character == null || character.isEmpty()) {
            return 0;
        }
        char c = character.charAt(0);
        long count = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                count++;
            }
        }
        return count;
    }
}
