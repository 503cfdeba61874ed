package dev.isthmus.iceberg.source;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * An SLF4J provider for the JVMs {@link ChildJvm} starts ({@code -Dslf4j.provider}): every
 * WARN and ERROR line on stdout as {@code LOG <level> <logger> <message>}, so a test can count
 * what a job logged. The tests' own JVMs log nowhere (they have no SLF4J 2 provider).
 */
public final class StdoutLogProvider implements SLF4JServiceProvider {
    public static final String PREFIX = "LOG ";

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return StdoutLogger::new;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {}

    private static final class StdoutLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        StdoutLogger(String loggerName) {
            this.name = loggerName;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(
                Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
            String message = MessageFormatter.basicArrayFormat(pattern, arguments);
            synchronized (System.out) {
                System.out.println(PREFIX + level + " " + name + " " + message.replace('\n', ' '));
            }
        }

        @Override
        public boolean isTraceEnabled() {
            return false;
        }

        @Override
        public boolean isDebugEnabled() {
            return false;
        }

        @Override
        public boolean isInfoEnabled() {
            return false;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }
}
