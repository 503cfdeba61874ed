package dev.isthmus.iceberg.sql;

import org.apache.flink.table.api.ValidationException;

/**
 * The JDK check of the factories Flink discovers ({@link IsthmusCatalogFactory},
 * {@link IsthmusConnectorFactory}). Compiled for Java 11 with them: it must load wherever they
 * load, and it touches Isthmus's JDK 25 classes only by name, once the JDK is known to be new
 * enough.
 */
final class IsthmusJdk {
    static final int REQUIRED = 25;

    private IsthmusJdk() {}

    /**
     * A new instance of the JDK 25 class that implements a registered factory.
     *
     * @param what what the user declared, for the message ("the catalog type 'isthmus-iceberg'")
     * @throws ValidationException on a JDK older than 25, saying what to run instead
     */
    static <T> T implementation(String what, String className, Class<T> type) {
        int jdk = Runtime.version().feature();
        if (jdk < REQUIRED) {
            throw new ValidationException(what + " (Isthmus) needs JDK " + REQUIRED + " or later, but this JVM is "
                    + Runtime.version() + " (" + System.getProperty("java.home") + "). Run the Flink client, the"
                    + " JobManager and the TaskManagers on JDK " + REQUIRED + ", or use Iceberg's own 'iceberg'.");
        }
        try {
            Class<?> implementation = Class.forName(className, true, IsthmusJdk.class.getClassLoader());
            var constructor = implementation.getDeclaredConstructor();
            return type.cast(constructor.newInstance());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + className, e);
        }
    }
}
