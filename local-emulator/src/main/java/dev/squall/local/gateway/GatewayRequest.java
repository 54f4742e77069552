package dev.squall.local.gateway;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An HTTP request as the gateway received it, before it becomes an event.
 *
 * @param method request method, e.g. {@code POST}
 * @param uri request target as sent (raw path and raw query)
 * @param protocol e.g. {@code HTTP/1.1}
 * @param headers header names (any case) to their values in arrival order
 * @param body the decoded (de-chunked) body, empty if there was none
 * @param sourceIp the client's address
 * @param receivedAt when the request arrived
 */
record GatewayRequest(String method, URI uri, String protocol, Map<String, List<String>> headers, byte[] body,
    String sourceIp, Instant receivedAt) {}
