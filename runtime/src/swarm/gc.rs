//! Ctrl-C cleanup and gc on the swarm: services and configs carry `taskc.session`, so a
//! session's objects (or those of sessions that no longer run) are found by label. Images
//! are the engine's ([`super::SwarmBackend::engine`]), and so is the gc of the runs'
//! private networks to their services (labelled like the Docker backend's).

use std::collections::HashMap;

use bollard::models::{Config, Service};

use super::api::label_filter;
use super::run::remove;
use super::SwarmBackend;
use crate::backend::{BackendError, GcItem, GcReport, KeepImages, SESSION_LABEL};

impl SwarmBackend {
    /// Services and configs labelled with a session: (id, session) each.
    async fn labelled(
        &self,
        label: &str,
    ) -> Result<(Vec<(String, String)>, Vec<(String, String)>), BackendError> {
        let query = label_filter("label", label);
        let services: Vec<Service> = self
            .api
            .get(&format!("/services?{query}"))
            .await
            .map_err(|e| e.into_backend("swarm: list services", label))?;
        let configs: Vec<Config> = self
            .api
            .get(&format!("/configs?{query}"))
            .await
            .map_err(|e| e.into_backend("swarm: list configs", label))?;
        let session_of = |labels: Option<&HashMap<String, String>>| {
            labels
                .and_then(|l| l.get(SESSION_LABEL))
                .cloned()
                .unwrap_or_default()
        };
        let services = services
            .into_iter()
            .filter_map(|s| {
                let session = session_of(s.spec.as_ref().and_then(|x| x.labels.as_ref()));
                s.id.map(|id| (id, session))
            })
            .collect();
        let configs = configs
            .into_iter()
            .filter_map(|c| {
                let session = session_of(c.spec.as_ref().and_then(|x| x.labels.as_ref()));
                c.id.map(|id| (id, session))
            })
            .collect();
        Ok((services, configs))
    }

    pub(super) async fn remove_session_inner(&self, session: &str) -> Result<usize, BackendError> {
        let label = format!("{SESSION_LABEL}={session}");
        let mut removed = 0;
        // A run may create its service between the two listings: a config it holds is then
        // in use, and the next round finds (and removes) that service first.
        for round in 1..=3 {
            let (services, configs) = self.labelled(&label).await?;
            for (id, _) in &services {
                remove(&self.api, Some(id.clone()), Vec::new()).await?;
            }
            removed += services.len();
            let configs = configs.into_iter().map(|(id, _)| id).collect();
            match remove(&self.api, None, configs).await {
                Ok(()) => break,
                Err(_) if round < 3 => continue,
                Err(e) => return Err(e),
            }
        }
        // The runs' private networks to their services, once their tasks left them.
        let networks = self
            .engine
            .client()
            .list_networks(Some(bollard::network::ListNetworksOptions {
                filters: HashMap::from([("label".to_string(), vec![label.clone()])]),
            }))
            .await
            .map_err(|e| crate::docker::docker_error("swarm: list networks", &label, e))?;
        for id in networks.into_iter().filter_map(|n| n.id) {
            super::services::remove_network(self.engine.client(), &id).await?;
        }
        Ok(removed)
    }

    /// Services and configs of this cache's sessions that no longer run.
    pub(super) async fn gc_inner(
        &self,
        keep: &KeepImages,
        dry_run: bool,
    ) -> Result<GcReport, BackendError> {
        let mut report = GcReport::new(dry_run);
        let (services, configs) = self.labelled(SESSION_LABEL).await?;
        let dead = |(id, session): (String, String)| {
            keep.may_remove_session(&session).then_some((id, session))
        };
        // Services first: the configs they hold can go only after them.
        for (id, session) in services.into_iter().filter_map(dead) {
            let item = GcItem::Service {
                id: id.clone(),
                session,
            };
            if !dry_run {
                if let Err(e) = remove(&self.api, Some(id), Vec::new()).await {
                    report.skipped.push((item, e.to_string()));
                    continue;
                }
            }
            report.removed.push(item);
        }
        for (id, session) in configs.into_iter().filter_map(dead) {
            let item = GcItem::Config {
                id: id.clone(),
                session,
            };
            if !dry_run {
                if let Err(e) = remove(&self.api, None, vec![id]).await {
                    report.skipped.push((item, e.to_string()));
                    continue;
                }
            }
            report.removed.push(item);
        }
        Ok(report)
    }
}
