package dev.isthmus.bench.nexmark;

/**
 * The two sides of a pair: the same SQL, reading and writing through Iceberg's own connector or
 * through Isthmus in strict mode, so that a native run cannot quietly fall back to the stock
 * path and still be counted as native.
 */
enum Leg {
    STOCK("iceberg", "iceberg", ""),
    NATIVE("isthmus-iceberg", "isthmus-iceberg", ", 'isthmus.strict'='true'");

    private final String connector;
    private final String catalogType;
    private final String strictOption;

    Leg(String connector, String catalogType, String strictOption) {
        this.connector = connector;
        this.catalogType = catalogType;
        this.strictOption = strictOption;
    }

    /** The {@code 'connector'} of the leg's source tables. */
    String connector() {
        return connector;
    }

    /** The {@code 'type'} of the catalog the leg's output tables live in. */
    String catalogType() {
        return catalogType;
    }

    /** Extra source and catalog options, starting with a comma, or empty. */
    String strictOption() {
        return strictOption;
    }

    /** The leg's output catalog, as the harness names it in SQL. */
    String catalog() {
        return this == STOCK ? "stock" : "isthmus";
    }

    String shortName() {
        return this == STOCK ? "s" : "n";
    }
}
