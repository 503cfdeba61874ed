package dev.isthmus.arrow;

import dev.isthmus.arrow.memory.LeakCheck;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Ends every test with {@link LeakCheck#assertNoLeaks()}: no Java-owned Arrow memory or array is
 * still live, and the native library holds none. Use with
 * {@code @ExtendWith(LeakCheckExtension.class)}; a test that leaks fails after its own assertions.
 */
public final class LeakCheckExtension implements AfterEachCallback {
    @Override
    public void afterEach(ExtensionContext context) {
        LeakCheck.assertNoLeaks();
    }
}
