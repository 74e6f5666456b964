// Turns of the host's event loop for background work (an automatic
// calibration, SPEC §4): the engine asks at each step, and after WORK_MS of
// work it waits for a macrotask, so I/O, timers and rendering run between
// its steps and no writer waits for all of it. The scheduler and the clock
// are taken when the package loads, so a test suite's fake timers installed
// later neither stall the work nor freeze its budget.
const WORK_MS = 4;

const clock = typeof performance === 'object' && typeof performance?.now === 'function' ? performance.now.bind(performance) : Date.now;

// setImmediate (Node, Bun) runs after pending I/O; a message on a fresh
// channel is a task in browsers and workers; setTimeout is the last resort.
const nextTask = typeof setImmediate === 'function'
  ? ((immediate) => () => new Promise((resolve) => immediate(resolve)))(setImmediate)
  : typeof MessageChannel === 'function'
    ? ((Channel) => () => new Promise((resolve) => {
      const channel = new Channel();
      channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
      channel.port2.postMessage(null);
    }))(MessageChannel)
    : ((timeout) => () => new Promise((resolve) => timeout(resolve, 0)))(setTimeout);

// Shared by every Memory of this realm: the budget is the event loop's.
let since = -Infinity;

/**
 * A Promise of the event loop's next turn when work is `starting` or the current
 * slice of work is WORK_MS long, else `undefined` (go on).
 */
export function turnIfDue(starting) {
  if (!starting && clock() - since < WORK_MS) return undefined;
  return nextTask().then(() => { since = clock(); });
}
