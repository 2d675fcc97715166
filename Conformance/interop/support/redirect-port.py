#!/usr/bin/env python3
"""Prints a free loopback port below the kernel's ephemeral range, for a fixed redirect port.

A fixed loopback redirect port (registered exactly at providers that match the port) is
bound again by every login of a run. Taken from the ephemeral range, it can meanwhile become
the source port of one of the run's own outgoing connections; that connection's TIME_WAIT
then blocks the listener for a minute ("port N is already in use"). Below the range no
outgoing connection ever uses it.
"""
import random
import socket
from pathlib import Path

try:
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
for _ in range(200):
    port = random.randrange(max(1024, low - 12000), low)
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            continue
    print(port)
    break
else:
    raise SystemExit("redirect-port: no free port below the ephemeral range")
