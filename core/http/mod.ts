/**
 * HTTP for both sides: JSON in and out, body reading, the router, the route shape and its
 * dispatcher, validation, client addresses and what every adapter's `serve` takes.
 *
 * @module
 */
export * from "./bytes.ts";
export * from "./client_address.ts";
export * from "./dispatch.ts";
export * from "./json.ts";
export * from "./prebuilt_refusals.ts";
export * from "./route.ts";
export * from "./router.ts";
export * from "./serve_options.ts";
export * from "./server_shutdown.ts";
export * from "./single_body.ts";
export * from "./text_response.ts";
export * from "./validation.ts";
