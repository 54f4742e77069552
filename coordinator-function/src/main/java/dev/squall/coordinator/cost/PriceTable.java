package dev.squall.coordinator.cost;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Unit prices in US dollars that a query's cost is estimated at (docs/cost.md gives the formula).
 * The defaults are AWS's published us-east-1 list prices of {@link #DEFAULT_AS_OF}: Lambda on arm64
 * (first tier), S3 Standard requests, DynamoDB on-demand request units.
 *
 * @param lambdaGbSecond one GB-second of Lambda duration
 * @param lambdaRequest one Lambda invocation
 * @param s3Put one S3 PUT, COPY, POST or LIST request
 * @param s3Get one S3 GET, HEAD or other request (DELETE is free)
 * @param dynamoDbRead one DynamoDB read request unit
 * @param dynamoDbWrite one DynamoDB write request unit
 * @param name how the table is named in a query's cost (the defaults: {@code "aws-us-east-1-" + DEFAULT_AS_OF})
 */
public record PriceTable(double lambdaGbSecond, double lambdaRequest, double s3Put, double s3Get, double dynamoDbRead,
    double dynamoDbWrite, String name) {
  /** When the default prices were read from AWS's price pages. */
  public static final String DEFAULT_AS_OF = "2024-11";

  /** us-east-1 list prices: see docs/cost.md. */
  public static final PriceTable DEFAULT = new PriceTable(
      0.0000133334, // Lambda arm64, per GB-s (first 7.5 billion GB-s a month)
      0.20 / 1_000_000, // Lambda, per request
      0.005 / 1_000, // S3 Standard PUT, COPY, POST, LIST
      0.0004 / 1_000, // S3 Standard GET, SELECT and all other requests
      0.125 / 1_000_000, // DynamoDB on-demand, per read request unit
      0.625 / 1_000_000, // DynamoDB on-demand, per write request unit
      "aws-us-east-1-" + DEFAULT_AS_OF);

  /** The environment variable that overrides prices, e.g. {@code lambda_gb_second=0.0000166667,s3_get=0.00000044}. */
  public static final String SETTING = "SQUALL_PRICES";

  public PriceTable {
    for (double p : new double[] {lambdaGbSecond, lambdaRequest, s3Put, s3Get, dynamoDbRead, dynamoDbWrite}) {
      if (!(p >= 0) || Double.isInfinite(p)) {
        throw new IllegalArgumentException("prices must be finite and not negative, not " + p);
      }
    }
  }

  /**
   * The defaults with the prices {@link #SETTING} names replaced: comma-separated {@code key=dollars}
   * with keys {@code lambda_gb_second}, {@code lambda_request}, {@code s3_put}, {@code s3_get},
   * {@code dynamodb_read}, {@code dynamodb_write}; the table is then named {@code "custom"}.
   *
   * @throws IllegalArgumentException naming the setting and the bad entry
   */
  public static PriceTable fromEnv(Map<String, String> env) {
    String raw = env.get(SETTING);
    if (raw == null || raw.isBlank()) {
      return DEFAULT;
    }
    Map<String, Double> prices = new LinkedHashMap<>();
    prices.put("lambda_gb_second", DEFAULT.lambdaGbSecond);
    prices.put("lambda_request", DEFAULT.lambdaRequest);
    prices.put("s3_put", DEFAULT.s3Put);
    prices.put("s3_get", DEFAULT.s3Get);
    prices.put("dynamodb_read", DEFAULT.dynamoDbRead);
    prices.put("dynamodb_write", DEFAULT.dynamoDbWrite);
    for (String entry : raw.split(",")) {
      String[] kv = entry.split("=", 2);
      String key = kv[0].trim().toLowerCase(Locale.ROOT);
      if (kv.length != 2 || !prices.containsKey(key)) {
        throw new IllegalArgumentException(SETTING + ": '" + entry.trim() + "' is not one of " + prices.keySet()
            + " = dollars");
      }
      try {
        prices.put(key, Double.parseDouble(kv[1].trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(SETTING + ": the price of " + key + " must be a number, not '"
            + kv[1].trim() + "'");
      }
    }
    return new PriceTable(prices.get("lambda_gb_second"), prices.get("lambda_request"), prices.get("s3_put"),
        prices.get("s3_get"), prices.get("dynamodb_read"), prices.get("dynamodb_write"), "custom");
  }
}
