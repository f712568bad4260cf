/** What test/support/global-setup.ts provides to every test file (read with inject()). */
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    sqsEndpoint: string;
  }
}
