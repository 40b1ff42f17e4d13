// The globals web-test-runner's mocha defines in the test page (only what the tests use).
declare function describe(name: string, body: () => void): void;
declare function it(name: string, body: () => Promise<void> | void): void;
declare function afterEach(body: () => Promise<void> | void): void;
