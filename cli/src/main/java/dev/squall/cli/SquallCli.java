package dev.squall.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code squall} command line: {@code squall local} starts the whole stack on this machine,
 * {@code squall query} sends SQL to a Squall endpoint and prints the answer.
 */
@Command(
    name = "squall",
    mixinStandardHelpOptions = true,
    version = "squall 0.1.0",
    description = "Serverless SQL on AWS Lambda, S3 and Iceberg.",
    subcommands = {LocalCommand.class, QueryCommand.class})
public final class SquallCli implements Runnable {
  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    int code = new CommandLine(new SquallCli()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    if (code != 0 || !LocalCommand.isServing()) {
      System.exit(code);
    }
  }
}
