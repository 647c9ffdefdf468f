"""pytest fixtures for extenddb: one in-memory server per test session, a
baseline snapshot restored before every test, and the manual clock.

Needs boto3 and the extenddb binary (on PATH, or named by EXTENDDB_BIN).
See docs/testing-with-extenddb.md.
"""
import json
import os
import re
import subprocess
import urllib.request

import boto3
import pytest

ENDPOINT_RE = re.compile(r'endpoint=(http://\S+)')


class Extenddb:
    """A running server and its admin API (unsigned requests are accepted
    in local mode)."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def admin(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.endpoint + "/admin/v1/" + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as resp:
            return json.load(resp)

    def client(self):
        return boto3.client("dynamodb", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id="test", aws_secret_access_key="test")

    def save_snapshot(self, name, tables=()):
        return self.admin("POST", "snapshots", {"Name": name, "Tables": list(tables)})

    def restore_snapshot(self, name):
        return self.admin("POST", f"snapshots/{name}/restore")

    def truncate(self, table):
        return self.admin("POST", f"tables/{table}/truncate")

    def advance(self, duration):
        """Move the manual clock forward, e.g. "1h" or "2d"."""
        return self.admin("POST", "clock", {"Advance": duration})

    def now(self):
        return self.admin("GET", "clock")["Now"]


@pytest.fixture(scope="session")
def extenddb():
    binary = os.environ.get("EXTENDDB_BIN", "extenddb")
    proc = subprocess.Popen([binary, "serve", "--in-memory", "--listen", "127.0.0.1:0",
                             "--admin-api", "--clock", "manual"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    endpoint = None
    for line in proc.stderr:  # the start-up log line names the endpoint
        m = ENDPOINT_RE.search(line)
        if m:
            endpoint = m.group(1)
            break
    if endpoint is None:
        proc.kill()
        raise RuntimeError("extenddb did not start")
    server = Extenddb(endpoint)
    server.save_snapshot("baseline")
    yield server
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture
def dynamodb(extenddb):
    """A client of a server reset to the session's baseline."""
    extenddb.restore_snapshot("baseline")
    return extenddb.client()
