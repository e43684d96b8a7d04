"""peak_rss.py [--scale=K] MIB CMD...: runs CMD (its output passes through)
and exits with its status, or with 3 and a line on stderr when CMD and the
processes it waited for peaked above MIB (times K) MiB resident
(getrusage RUSAGE_CHILDREN). lit's %peak_rss."""
import resource
import subprocess
import sys

args = sys.argv[1:]
scale = 1.0
if args[0].startswith("--scale="):
    scale = float(args.pop(0).split("=", 1)[1])
limit = float(args[0]) * scale
rc = subprocess.call(args[1:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
if peak > limit:
    sys.stderr.write("peak_rss: %.1f MiB resident, more than %g\n" % (peak, limit))
    sys.exit(3)
sys.exit(rc)
