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
/** Whether an answer given again and again is a clone of one kept (the serving adapter says so; off by default). */
let keptByClone = false;

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

/** An answer given again and again (a prebuilt refusal): its text and init, and the Response kept to clone. */
export interface KeptAnswer {
  /** The body. */
  readonly text: string;
  /** Status and headers. */
  readonly init: ResponseInit;
  /** The Response its clones are taken from (built on first use, of the class named then). */
  response?: Response;
}

/**
 * A fresh answer of a kept one: by default a new Response over its text; a clone of one Response kept for it where
 * the serving adapter asked ({@linkcode answerKeptByClone}). On Deno (2.9) a `Response` of another status than 200
 * costs about 1.2 µs to build: its constructor prepares `Deno.serve`'s native answer (an op) and registers it with a
 * finalizer; a clone of a kept one costs 0.1 µs, prepares nothing and is sent the ordinary way, which costs the server
 * less overall (a `403` through `Deno.serve`: 2 to 5 µs of server CPU less a request). Not on Node: each clone of an
 * undici `Response` tees its body, and repeated clones of one overflow the stack.
 *
 * @example A refusal answered again
 * ```ts
 * import { type KeptAnswer, keptResponse } from "./text_response.ts";
 *
 * const kept: KeptAnswer = { text: '{"ok":false}', init: { status: 403 } };
 * console.log(keptResponse(kept).status, await keptResponse(kept).text()); // 403 {"ok":false}
 * ```
 *
 * @param kept The kept answer.
 * @returns A Response of its own (its headers may be changed without touching the kept one).
 */
export function keptResponse(kept: KeptAnswer): Response {
  if (!keptByClone) return textResponse(kept.text, kept.init);
  let response = kept.response;
  if (response === undefined || response.constructor !== answerClass) {
    response = kept.response = textResponse(kept.text, kept.init);
  }
  return response.clone();
}

/**
 * Says whether answers given again and again are clones of one kept Response, from now on in this process: an
 * adapter does, when it starts serving, where its server sends a clone more cheaply than a new Response (Deno).
 *
 * @param byClone `true`: clones.
 * @returns What was said before.
 */
export function answerKeptByClone(byClone: boolean): boolean {
  const previous = keptByClone;
  keptByClone = byClone;
  return previous;
}
