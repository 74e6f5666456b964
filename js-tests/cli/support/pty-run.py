"""Runs a command in a pseudo-terminal and answers its prompts, like a person.

usage: pty-run.py '<json: [[regex, answer], ...]>' -- command args...

Each regex is waited for in the output seen since the previous answer; then the
answer and a newline are typed. An answer of null sends Ctrl-D (end of input),
"^C" sends Ctrl-C. An optional third element {"signal": path, "waitFor": path}
creates `signal` once the prompt is seen and waits for `waitFor` to exist
before answering (so a test can act while the prompt waits). The output is printed to stdout; the exit status is the
command's (128+signal if killed). Gives up after 30 s.
"""
import json
import os
import pty
import re
import select
import sys
import time

def main():
    sep = sys.argv.index('--')
    steps = json.loads(sys.argv[1])
    cmd = sys.argv[sep + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    seen = b''
    cursor = 0
    step = 0
    deadline = time.time() + 30
    while True:
        if time.time() > deadline:
            os.kill(pid, 9)
            sys.stdout.write(seen.decode(errors='replace') + '\n[pty-run: timed out]\n')
            sys.exit(124)
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b''
            if not chunk:
                break
            seen += chunk
        while step < len(steps) and re.search(steps[step][0], seen[cursor:].decode(errors='replace')):
            cursor = len(seen)
            answer = steps[step][1]
            sync = steps[step][2] if len(steps[step]) > 2 else {}
            if sync.get('signal'):
                open(sync['signal'], 'w').close()
            while sync.get('waitFor') and not os.path.exists(sync['waitFor']):
                if time.time() > deadline:
                    break
                time.sleep(0.02)
            if answer is None:
                os.write(fd, b'\x04')
            elif answer == '^C':
                os.write(fd, b'\x03')
            else:
                os.write(fd, answer.encode() + b'\r')
            step += 1
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors='replace'))
    if os.WIFSIGNALED(status):
        sys.exit(128 + os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status))

main()
