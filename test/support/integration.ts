/** Prints the one line that says why a real-server suite did not run. */
export const skipLine = (suite: string, variable: string): void => {
  console.log(`  skipped: ${suite} (${variable} is not set; see docs/contributors/testing.md, "Integration suites")`);
};
