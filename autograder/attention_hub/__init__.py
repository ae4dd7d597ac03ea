"""The classroom JupyterHub, run by the hub as root.

What the hub configs in autograder/jupyterhub/ call: :func:`attention_hub.configure.configure_hub`.
"""
