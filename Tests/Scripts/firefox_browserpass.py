#!/usr/bin/env python3
"""Fill a login form in Firefox with the browserpass extension, for tresor's browser test.

usage: firefox_browserpass.py FIREFOX PROFILE MARIONETTE_PORT URL [popup]

Starts FIREFOX (Marionette on MARIONETTE_PORT, the profile's user.js enables the system extension), opens URL and
asks the extension to fill the form: with its shortcut Ctrl+Shift+F ("fillBest", sent through Marionette), or with
"popup", through its popup opened with Ctrl+Shift+L, its first login clicked with real X input (xdotool: the
popup takes no Marionette input). Prints {"username": …, "password": …} (the form's fields afterwards) as JSON and stops Firefox.
The environment (DISPLAY, HOME, TRESOR_*) is Firefox's and so the native host's.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

from marionette_driver.marionette import Marionette

FIREFOX, PROFILE, PORT, URL = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
MODE = sys.argv[5] if len(sys.argv) > 5 else "shortcut"
EXTENSION = "browserpass@maximbaz.com"


def wait_for_port(port, deadline):
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.2)
    return False


def fields(client):
    return client.execute_script(
        "return [document.getElementById('user').value, document.getElementById('pass').value]")


def xdotool(*args):
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=20).stdout.strip()


CONTROL, SHIFT = "\ue009", "\ue008"


def fill_with_popup():
    """As a person does: Ctrl+Shift+L opens the popup, which lists this site's logins; a click on the first fills."""
    main_window = xdotool("search", "--onlyvisible", "--name", "Login").split("\n")[0]
    xdotool("windowfocus", "--sync", main_window)
    xdotool("key", "--clearmodifiers", "ctrl+shift+l")
    geometry = None
    for _ in range(100):
        popup = xdotool("search", "--onlyvisible", "--name", "^Firefox$").split("\n")[0]
        if popup:
            g = dict(line.split("=") for line in xdotool("getwindowgeometry", "--shell", popup).split())
            # It opens tiny and grows once the extension has drawn the list.
            if int(g["HEIGHT"]) > 60:
                geometry = g
                break
        time.sleep(0.1)
    if geometry is None:
        return
    # The search bar is on top; the first login below it.
    x, y = int(geometry["X"]) + int(geometry["WIDTH"]) // 2, int(geometry["Y"]) + 60
    xdotool("mousemove", str(x), str(y))
    time.sleep(0.2)
    xdotool("click", "1")


def main():
    log = open(os.path.join(PROFILE, "firefox.log"), "w")
    firefox = subprocess.Popen([FIREFOX, "--marionette", "--remote-allow-system-access", "--no-remote", "--profile", PROFILE,
                                "about:blank"], stdout=log, stderr=log, start_new_session=True)
    result = {"username": None, "password": None}
    try:
        if not wait_for_port(PORT, time.time() + 90):
            raise SystemExit("Marionette did not start listening")
        client = Marionette(host="127.0.0.1", port=PORT)
        client.start_session(timeout=90)
        with client.using_context(client.CONTEXT_CHROME):
            active = client.execute_script("""
                const {AddonManager} = ChromeUtils.importESModule("resource://gre/modules/AddonManager.sys.mjs");
                return AddonManager.getAddonByID(arguments[0]).then(a => a ? a.isActive : false);
                """, script_args=[EXTENSION])
        if not active:
            raise SystemExit("the browserpass extension is not active in the profile")
        client.navigate(URL)
        deadline = time.time() + 60
        while time.time() < deadline:
            if MODE == "popup":
                fill_with_popup()
            else:
                # The shortcut goes to the browser window (chrome), where extension commands are handled.
                with client.using_context(client.CONTEXT_CHROME):
                    client.actions.sequence("key", "keyboard").key_down(CONTROL).key_down(SHIFT).key_down("F") \
                        .key_up("F").key_up(SHIFT).key_up(CONTROL).perform()
            for _ in range(20):
                user, password = fields(client)
                if user or password:
                    break
                time.sleep(0.25)
            user, password = fields(client)
            if user or password:
                result = {"username": user, "password": password}
                break
        print(json.dumps(result))
        client.delete_session()
    finally:
        try:
            os.killpg(firefox.pid, signal.SIGTERM)
            firefox.wait(timeout=20)
        except Exception:
            os.killpg(firefox.pid, signal.SIGKILL)
            firefox.wait()


if __name__ == "__main__":
    main()
