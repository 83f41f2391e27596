# Named contexts corpus (ctx): a harness context the spec does not declare.
FROM taskc/base:bookworm
COPY --from=task_ctx /repo_envs.tsv /opt/ecosync/repo-envs.tsv
