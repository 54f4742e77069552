package dev.squall.cli;

import java.net.URI;
import picocli.CommandLine.Option;

/** The {@code --endpoint} option that every command talking to a Squall endpoint shares. */
final class EndpointOption {
  @Option(names = "--endpoint", defaultValue = "${SQUALL_ENDPOINT:-http://127.0.0.1:8080}",
      description = "Squall HTTP endpoint (default: $SQUALL_ENDPOINT or ${DEFAULT-VALUE}).")
  URI endpoint;
}
