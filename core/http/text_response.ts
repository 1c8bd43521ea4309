/**
 * How the toolkit builds its answers: every JSON answer and refusal is text
 * made here. A server adapter may name a lighter `Response` class its server
 * sends directly: on Node, `adapters/node.ts` names srvx's `FastResponse`
 * (`instanceof Response`, with every property and method of one, built on first
 * use), because building Node's own `Response` around a string costs about 9 µs
 * (a Web stream), and srvx then writes the text to the socket with its length.
 * Everywhere else answers are the runtime's own `Response`.
 *
 * @module
 */

/** A class whose instances are `Response`s. */
export type ResponseClass = new (body: string, init: ResponseInit) => Response;

let answerClass: ResponseClass = Response;

/**
 * A `Response` over `text`, of the class the serving adapter chose.
 *
 * @example A JSON answer
 * ```ts
 * import { textResponse } from "./text_response.ts";
 *
 * const answer = textResponse('{"ok":true}', { headers: { "content-type": "application/json" } });
 * console.log(await answer.json()); // { ok: true }
 * ```
 *
 * @param text The body.
 * @param init Status and headers.
 * @returns The response.
 */
export function textResponse(text: string, init: ResponseInit): Response {
  return new answerClass(text, init);
}

/**
 * Names the class of every answer built from now on in this process (an adapter does, when it starts serving).
 *
 * @param responseClass The class; its instances must be `Response`s.
 * @returns The class named before.
 */
export function answerWith(responseClass: ResponseClass): ResponseClass {
  const previous = answerClass;
  answerClass = responseClass;
  return previous;
}
