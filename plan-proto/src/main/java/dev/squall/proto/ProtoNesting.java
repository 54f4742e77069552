package dev.squall.proto;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Parser;
import java.util.List;
import java.util.Map;

/**
 * How deeply plan messages may nest. Protobuf's parsers refuse messages nested over 100 levels by
 * default, which a 50-term sum or a long CASE already passes (every expression level is an
 * Expression and a Call message). Squall's parsers of plans and task specs allow
 * {@link #MAX_DEPTH}, and the coordinator refuses any plan deeper than that before a task runs,
 * so that no task attempt fails on nesting.
 */
public final class ProtoNesting {
  /** The deepest message nesting a stored plan or a task spec may have. */
  public static final int MAX_DEPTH = 1000;

  private ProtoNesting() {}

  /**
   * Parses {@code bytes} allowing {@link #MAX_DEPTH} levels of nesting.
   *
   * @throws InvalidProtocolBufferException for bytes that are not a valid message, or nest deeper
   */
  public static <T extends Message> T parse(Parser<T> parser, byte[] bytes) throws InvalidProtocolBufferException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    in.setRecursionLimit(MAX_DEPTH);
    T message = parser.parseFrom(in);
    in.checkLastTagWas(0);
    return message;
  }

  /** The message's nesting depth: 1 for a message without set message fields. */
  public static int depth(MessageOrBuilder message) {
    int deepest = 0;
    for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      if (field.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (field.getKey().isRepeated()) {
        for (Object element : (List<?>) field.getValue()) {
          deepest = Math.max(deepest, depth((MessageOrBuilder) element));
        }
      } else {
        deepest = Math.max(deepest, depth((MessageOrBuilder) field.getValue()));
      }
    }
    return deepest + 1;
  }
}
