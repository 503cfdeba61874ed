package dev.isthmus.arrow.types;

import dev.isthmus.arrow.types.ArrowType.TimeUnit;

/** Format strings of the Arrow C Data Interface, parsed into {@link ArrowType} and rendered back. */
public final class ArrowFormat {
    private ArrowFormat() {}

    /**
     * Parses one format string.
     *
     * @throws IllegalArgumentException naming the format when it is malformed or not supported
     */
    public static ArrowType parse(String format) {
        ArrowType type = parseOrNull(format);
        if (type == null) {
            throw new IllegalArgumentException("unsupported or malformed Arrow format string '" + format + "'");
        }
        return type;
    }

    private static ArrowType parseOrNull(String f) {
        switch (f) {
            case "n":
                return new ArrowType.Null();
            case "b":
                return new ArrowType.Bool();
            case "c":
                return new ArrowType.Int(8, true);
            case "C":
                return new ArrowType.Int(8, false);
            case "s":
                return new ArrowType.Int(16, true);
            case "S":
                return new ArrowType.Int(16, false);
            case "i":
                return new ArrowType.Int(32, true);
            case "I":
                return new ArrowType.Int(32, false);
            case "l":
                return new ArrowType.Int(64, true);
            case "L":
                return new ArrowType.Int(64, false);
            case "f":
                return new ArrowType.Float32();
            case "g":
                return new ArrowType.Float64();
            case "u":
                return new ArrowType.Utf8(false);
            case "U":
                return new ArrowType.Utf8(true);
            case "z":
                return new ArrowType.Binary(false);
            case "Z":
                return new ArrowType.Binary(true);
            case "tdD":
                return new ArrowType.Date(true);
            case "tdm":
                return new ArrowType.Date(false);
            case "tts":
                return new ArrowType.Time(TimeUnit.SECOND);
            case "ttm":
                return new ArrowType.Time(TimeUnit.MILLISECOND);
            case "ttu":
                return new ArrowType.Time(TimeUnit.MICROSECOND);
            case "ttn":
                return new ArrowType.Time(TimeUnit.NANOSECOND);
            case "+s":
                return new ArrowType.Struct();
            case "+l":
                return new ArrowType.List(false);
            case "+L":
                return new ArrowType.List(true);
            case "+m":
                return new ArrowType.Map(false);
            default:
                break;
        }
        if (f.startsWith("ts") && f.length() >= 4 && f.charAt(3) == ':') {
            TimeUnit unit = unit(f.charAt(2));
            String zone = f.substring(4);
            return unit == null ? null : new ArrowType.Timestamp(unit, zone.isEmpty() ? null : zone);
        }
        try {
            if (f.startsWith("w:")) {
                return new ArrowType.FixedSizeBinary(Integer.parseInt(f.substring(2)));
            }
            if (f.startsWith("d:")) {
                String[] parts = f.substring(2).split(",", -1);
                if (parts.length == 3 && !parts[2].equals("128")) {
                    return null;
                }
                if (parts.length != 2 && parts.length != 3) {
                    return null;
                }
                return new ArrowType.Decimal(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    private static TimeUnit unit(char letter) {
        for (TimeUnit unit : TimeUnit.values()) {
            if (unit.letter() == letter) {
                return unit;
            }
        }
        return null;
    }

    /** The format string of {@code type}. A map's keys-sorted flag lives in the schema's flags. */
    public static String render(ArrowType type) {
        return switch (type) {
            case ArrowType.Null n -> "n";
            case ArrowType.Bool b -> "b";
            case ArrowType.Int i ->
                switch (i.bitWidth()) {
                    case 8 -> i.signed() ? "c" : "C";
                    case 16 -> i.signed() ? "s" : "S";
                    case 32 -> i.signed() ? "i" : "I";
                    default -> i.signed() ? "l" : "L";
                };
            case ArrowType.Float32 f -> "f";
            case ArrowType.Float64 d -> "g";
            case ArrowType.Decimal d -> "d:" + d.precision() + "," + d.scale();
            case ArrowType.Date d -> d.days() ? "tdD" : "tdm";
            case ArrowType.Time t -> "tt" + t.unit().letter();
            case ArrowType.Timestamp t -> "ts" + t.unit().letter() + ":" + (t.timezone() == null ? "" : t.timezone());
            case ArrowType.Utf8 u -> u.large() ? "U" : "u";
            case ArrowType.Binary b -> b.large() ? "Z" : "z";
            case ArrowType.FixedSizeBinary w -> "w:" + w.byteWidth();
            case ArrowType.Struct s -> "+s";
            case ArrowType.List l -> l.large() ? "+L" : "+l";
            case ArrowType.Map m -> "+m";
        };
    }
}
