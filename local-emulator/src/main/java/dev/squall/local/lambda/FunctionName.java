package dev.squall.local.lambda;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The function named in an Invoke request, in any form the Lambda API accepts: {@code name},
 * {@code name:qualifier}, {@code 123456789012:function:name[:qualifier]} or
 * {@code arn:aws:lambda:region:account:function:name[:qualifier]}.
 *
 * @param name the bare function name
 * @param qualifier the version or alias, if one was given
 */
record FunctionName(String name, Optional<String> qualifier) {
  /** Account id in the ARNs the emulator reports (LocalStack uses the same). */
  static final String ACCOUNT_ID = "000000000000";
  /** Region in the ARNs the emulator reports. */
  static final String REGION = "us-east-1";

  // Pattern from the FunctionName constraint in the Lambda API reference.
  private static final Pattern FORM = Pattern.compile(
      "^(?:arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:)?(?:\\d{12}:)?(?:function:)?([a-zA-Z0-9_-]{1,64})(?::(\\$LATEST|[a-zA-Z0-9_-]+))?$");

  /**
   * Parses a function name.
   *
   * @throws InvokeApiException 400 {@code InvalidParameterValueException} naming the value if it is
   *     not a function name, partial ARN or ARN
   */
  static FunctionName parse(String value) {
    Matcher m = FORM.matcher(value);
    if (!m.matches()) {
      throw InvokeApiException.invalidParameterValue(
          "1 validation error detected: Value '" + value + "' at 'functionName' failed to satisfy constraint: "
              + "Member must be a function name, name:qualifier or function ARN");
    }
    return new FunctionName(m.group(1), Optional.ofNullable(m.group(2)));
  }

  /** The qualified ARN, as AWS writes it in "Function not found" errors. */
  String arn() {
    return "arn:aws:lambda:" + REGION + ":" + ACCOUNT_ID + ":function:" + name + qualifier.map(q -> ":" + q).orElse("");
  }
}
