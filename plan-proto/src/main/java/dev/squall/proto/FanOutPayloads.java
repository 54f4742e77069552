package dev.squall.proto;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The payloads of two-level invocation, where the coordinator invokes the task function in its
 * invoker role and that invocation invokes a share of a stage's tasks.
 *
 * <p>Request: {@code {"invokeTasks":["<base64>", ...]}}, each element the base64 of one task's own
 * invocation payload ({@link TaskPayloads}: an inline spec or a reference to a stored one), so an
 * invoker forwards the bytes it got and never reads a spec. Answer: {@code {"taskAnswers":[...]}},
 * one element per task in the request's order: {@code "R<base64>"} the task function's answer as it
 * came (an inline result or a reference to a stored one), or {@code "E<base64>"} the UTF-8 message of
 * an invocation that got no answer (throttled past the invoker's retries, a function error, a
 * transport failure). Base64 holds no quote or comma, so the arrays parse without a JSON library.
 */
public final class FanOutPayloads {
  private static final Pattern REQUEST = Pattern.compile("^\\s*\\{\\s*\"invokeTasks\"\\s*:\\s*\\[([^\\]]*)]\\s*}\\s*$");
  private static final Pattern ANSWER = Pattern.compile("^\\s*\\{\\s*\"taskAnswers\"\\s*:\\s*\\[([^\\]]*)]\\s*}\\s*$");

  private FanOutPayloads() {}

  /** One task's outcome as an invoker saw it: the task function's answer, or why there was none. */
  public record TaskAnswer(byte[] answer, String invokeError) {
    /** The task function answered (its payload as it came). */
    public static TaskAnswer answered(byte[] payload) {
      return new TaskAnswer(payload, null);
    }

    /** The invocation got no answer. */
    public static TaskAnswer failed(String message) {
      return new TaskAnswer(null, message);
    }

    public boolean isAnswered() {
      return answer != null;
    }
  }

  /** The invoker request for these task invocation payloads. */
  public static byte[] encodeRequest(List<byte[]> taskPayloads) {
    StringBuilder b = new StringBuilder("{\"invokeTasks\":[");
    for (int i = 0; i < taskPayloads.size(); i++) {
      b.append(i == 0 ? "\"" : ",\"").append(Base64.getEncoder().encodeToString(taskPayloads.get(i))).append('"');
    }
    return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The task payloads of an invoker request, or empty when {@code payload} is not one. */
  public static Optional<List<byte[]>> decodeRequest(byte[] payload) {
    Matcher m = REQUEST.matcher(new String(payload, StandardCharsets.UTF_8));
    if (!m.matches()) {
      return Optional.empty();
    }
    List<byte[]> out = new ArrayList<>();
    for (String element : elements(m.group(1))) {
      out.add(Base64.getDecoder().decode(element));
    }
    return Optional.of(out);
  }

  /** The invoker's answer. */
  public static byte[] encodeAnswer(List<TaskAnswer> answers) {
    StringBuilder b = new StringBuilder("{\"taskAnswers\":[");
    for (int i = 0; i < answers.size(); i++) {
      TaskAnswer a = answers.get(i);
      byte[] bytes = a.isAnswered() ? a.answer() : a.invokeError().getBytes(StandardCharsets.UTF_8);
      b.append(i == 0 ? "\"" : ",\"").append(a.isAnswered() ? 'R' : 'E')
          .append(Base64.getEncoder().encodeToString(bytes)).append('"');
    }
    return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The answers in an invoker's answer.
   *
   * @throws IllegalArgumentException when {@code payload} is not an invoker answer
   */
  public static List<TaskAnswer> decodeAnswer(byte[] payload) {
    Matcher m = ANSWER.matcher(new String(payload, StandardCharsets.UTF_8));
    if (!m.matches()) {
      throw new IllegalArgumentException("not an invoker answer (expected {\"taskAnswers\":[...]})");
    }
    List<TaskAnswer> out = new ArrayList<>();
    for (String element : elements(m.group(1))) {
      if (element.isEmpty() || (element.charAt(0) != 'R' && element.charAt(0) != 'E')) {
        throw new IllegalArgumentException("invoker answer element must start with R or E");
      }
      byte[] bytes = Base64.getDecoder().decode(element.substring(1));
      out.add(element.charAt(0) == 'R' ? TaskAnswer.answered(bytes)
          : TaskAnswer.failed(new String(bytes, StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static List<String> elements(String array) {
    List<String> out = new ArrayList<>();
    if (array.isBlank()) {
      return out;
    }
    for (String quoted : array.split(",")) {
      String t = quoted.strip();
      if (t.length() < 2 || t.charAt(0) != '"' || t.charAt(t.length() - 1) != '"') {
        throw new IllegalArgumentException("invoker payload array elements must be quoted strings");
      }
      out.add(t.substring(1, t.length() - 1));
    }
    return out;
  }
}
