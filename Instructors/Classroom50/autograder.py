"""Concurrency Kata autograder for Classroom 50 (foundation50/classroom50).

What it is for: grading one student's submission of this course on Classroom 50. The runner
calls it in the student's checkout; it copies only the student's Exercises/ into a clean copy
of the course (so edited tests, rubric or grader count for nothing), runs the course's grader
there and writes ./result.json (schema classroom50/result/v1, one test per check with its
points; the contract is the wiki page "Advanced-Autograding", section "The result.json contract").

How to use it:
  1. Set COURSE_REPOSITORY and COURSE_REF below to the course your students accepted (the
     assignment's template repository and a commit or tag of it): the clean copy comes from there.
  2. In your classroom50 config repository, put this file at
     CLASSROOM/autograders/ASSIGNMENT/autograder.py and commit it (per-assignment autograders are
     authored with git; `gh teacher autograder list ORG CLASSROOM` shows it).
  3. Register the assignment with the Swift toolchain:
     gh teacher assignment add ORG CLASSROOM ASSIGNMENT --name "Concurrency Kata" \
         --template OWNER/TEMPLATE --runtime Instructors/Classroom50/runtime.json
  Try it locally from a student's checkout (no Classroom 50 needed):
     COURSE_REPOSITORY=/path/to/course python3 /path/to/autograder.py

Exit status: 0 when grading ran (the score is in result.json, whatever it is); 1 when it could
not run (no toolchain, the course could not be fetched, the grader itself failed to build): the
runner then posts an error and leaves the submission's Release unchanged.

Timing: Classroom 50 stops a grade job after 15 minutes, and every submission starts from a cold
build (the race check builds the course a second time, under ThreadSanitizer): see Instructors/README.md,
"Timings measured here". GRADER_OPTIONS can add --no-race-check, which leaves the race check's
points unearned, or name the exercises of this assignment (e.g. "ThreadSafeDictionary
AsyncOperation"), which builds and grades only those.
"""

import datetime
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The course the students accepted: a git URL or path, and a commit, tag or branch of it.
COURSE_REPOSITORY = os.environ.get("COURSE_REPOSITORY", "")
COURSE_REF = os.environ.get("COURSE_REF", "")
# Extra grader options, e.g. "--no-race-check" or "--timeout 120".
GRADER_OPTIONS = os.environ.get("GRADER_OPTIONS", "").split()


def fail(message):
    """Grading could not run: say why on the runner's log and exit non-zero."""
    print(f"::error::{message}", file=sys.stderr)
    sys.exit(1)


def run(arguments, **options):
    print("+ " + " ".join(arguments), flush=True)
    return subprocess.run(arguments, **options)


def submission_datetime(checkout):
    """The graded commit's committer date in UTC (the contract's `datetime`), or "" if unknown."""
    result = subprocess.run(
        ["git", "-C", str(checkout), "log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ"],
        capture_output=True, text=True, env={**os.environ, "TZ": "UTC"})
    return result.stdout.strip() if result.returncode == 0 else ""


def clean_course(destination):
    """A fresh clone of the course at COURSE_REF, without its git folder."""
    if not COURSE_REPOSITORY:
        fail("COURSE_REPOSITORY is not set: edit the top of autograder.py (the clean copy of the course comes from it)")
    if run(["git", "clone", "--quiet", COURSE_REPOSITORY, str(destination)]).returncode != 0:
        fail(f"could not clone {COURSE_REPOSITORY}")
    if COURSE_REF and run(["git", "-C", str(destination), "checkout", "--quiet", COURSE_REF]).returncode != 0:
        fail(f"{COURSE_REPOSITORY} has no {COURSE_REF}")
    shutil.rmtree(destination / ".git", ignore_errors=True)


def copy_exercises(checkout, course):
    """The student's Exercises/<Name>/ folders over the course's stubs; nothing else of theirs.
    Symbolic links are dropped (one could point into the course's tests)."""
    source = checkout / "Exercises"
    if not source.is_dir():
        return
    for folder in sorted(p for p in source.iterdir() if p.is_dir() and not p.is_symlink()):
        target = course / "Exercises" / folder.name
        if not target.is_dir():
            continue  # not an exercise of this course
        shutil.rmtree(target)
        shutil.copytree(folder, target, symlinks=True)
        for link in [p for p in target.rglob("*") if p.is_symlink()]:
            link.unlink()


def main():
    checkout = Path.cwd()
    result = checkout / "result.json"
    if result.exists():
        result.unlink()  # a result.json committed by the student is not the grade
    if shutil.which("swift") is None:
        fail("no Swift toolchain on this runner: register the assignment with --runtime runtime.json")
    work = Path(tempfile.mkdtemp(prefix="kata-"))
    course = work / "course"
    clean_course(course)
    copy_exercises(checkout, course)
    if run(["swift", "build", "--product", "grader"], cwd=course).returncode != 0:
        fail("the course's grader does not build")
    environment = {**os.environ, "SUBMISSION_DATETIME": submission_datetime(checkout), "NO_COLOR": "1"}
    grader = run(["swift", "run", "--skip-build", "grader", "--no-wait", "--no-model", "--classroom50", str(result)] + GRADER_OPTIONS,
                 cwd=course, env=environment)
    # 0: every exercise complete; 1: graded, not complete; 2: grading could not run.
    if grader.returncode not in (0, 1) or not result.is_file():
        fail(f"the grader could not grade this submission (exit status {grader.returncode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
