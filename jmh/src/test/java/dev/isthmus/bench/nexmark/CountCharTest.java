package dev.isthmus.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CountCharTest {
    private final CountChar countChar = new CountChar();

    @Test
    void countsTheFirstCharacter() {
        assertThat(countChar.eval("accbcc", "c")).isEqualTo(4);
        assertThat(countChar.eval("accbcc", "cb")).isEqualTo(4);
        assertThat(countChar.eval("abc", "x")).isZero();
        assertThat(countChar.eval("", "c")).isZero();
        assertThat(countChar.eval("Cc", "c")).isEqualTo(1);
    }

    @Test
    void nullOrEmptyCountsZero() {
        assertThat(countChar.eval(null, "c")).isZero();
        assertThat(countChar.eval("abc", null)).isZero();
        assertThat(countChar.eval("abc", "")).isZero();
    }
}
