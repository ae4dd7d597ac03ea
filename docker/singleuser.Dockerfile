# The course image that autograder/jupyterhub/z2jh-values.yaml (every student's and instructor's
# server) and the grading Jobs (k8s-collect-job.yaml, k8s-grade-job.yaml) name. Build it from the
# repository root, with the tag equal to pyproject.toml's version (tests/test_k8s_image.py):
#   docker build -f docker/singleuser.Dockerfile -t registry.example.org/attention-lab/singleuser:0.1.0 .
# docs/kubernetes.md says what this image holds, what it leaves out and why.
FROM python:3.11-slim-bookworm

LABEL org.opencontainers.image.title="attention-lab-singleuser" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="MIT AND CC-BY-4.0"

# bubblewrap: the grading sandbox (autograder/attention_grader/sandbox/sandbox.py); prlimit comes with
# util-linux, which every Debian image has. Debian's security updates move the exact versions,
# so they are not pinned here (the Python packages are: requirements-lock.txt).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

# The z2jh default user: uid 1000 in group users (100), as the chart and the Jobs expect.
RUN useradd --uid 1000 --gid 100 --create-home --shell /bin/bash jovyan

ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The packages, every version from the lock: the students' set plus the grader and postgres
# extras, and JupyterHub for jupyterhub-singleuser (z2jh starts it). Only what the install needs
# is copied first, so an edited lesson does not reinstall everything.
WORKDIR /opt/attention-lab
COPY requirements-lock.txt pyproject.toml README.md LICENSE LICENSE-content.md ./
COPY attention_lab ./attention_lab
COPY autograder/attention_grader ./autograder/attention_grader
# rfc3987-syntax and lark cost 2.7 s at every Jupyter start (the Makefile's SLOW_IMPORTS).
RUN python -m venv /opt/venv \
    && pip install --no-cache-dir -c requirements-lock.txt ".[grader,postgres]" jupyterhub \
    && pip uninstall -y -q rfc3987-syntax lark

# What `make setup` adds to the venv: Notebook 7's slider keys, the server's extensions (the
# formgrader's CSP, kernel websockets without Nagle's delay): the whole folder, so none is missed.
COPY jupyter-settings/overrides.json /opt/venv/share/jupyter/lab/settings/overrides.json
COPY jupyter-settings/jupyter_server_config.d/ /opt/venv/etc/jupyter/jupyter_server_config.d/
# The student clock's plugin (due dates and lateness in the Assignment List): plain JavaScript.
COPY jupyter-settings/labextensions/course-ui/ /opt/venv/share/jupyter/labextensions/@attention-lab/course-ui/

# The lessons, read-only for students (their home is a volume: they copy a lesson to keep it).
# NOT source/: the assignments' solutions and hidden tests never go into an image every student
# runs (.dockerignore keeps them out of the build context as well).
COPY notebooks ./notebooks

USER 1000
WORKDIR /home/jovyan
CMD ["jupyterhub-singleuser"]
