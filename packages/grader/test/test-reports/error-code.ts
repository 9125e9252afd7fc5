// The `code` of the error a call throws, checked against the module's own error class, so
// tests assert codes rather than messages.

type CodedErrorClass = abstract new (...args: never[]) => Error & { readonly code: string };

export function errorCode(errorClass: CodedErrorClass, run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof errorClass ? error.code : `not a ${errorClass.name}: ${String(error)}`;
  }
  return undefined;
}
