//! Kubeconfig `exec` credential plugins (`aws eks get-token`, `kubelogin`, …), run by us under
//! a deadline instead of by kube, which waits for the plugin without a bound: a plugin that
//! never answers would hang the tool for good, whatever `--request-timeout` says.
//!
//! The plugin runs as client-go runs it (the command, its args and env, `KUBERNETES_EXEC_INFO`,
//! stdin only when interactive); its `ExecCredential` answer replaces the `exec` stanza of the
//! selected user with the token or client certificate it gave, so kube never runs it again.
//! Past the deadline the plugin is killed and the error names it.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use kube::config::{ExecConfig, ExecInteractiveMode, KubeConfigOptions, Kubeconfig};
use serde_json::{json, Value};

use crate::error::Error;

/// Runs the selected user's credential plugin, if it has one, and writes what it answered into
/// `kubeconfig`. `deadline` `None` waits as long as the plugin takes (`--request-timeout 0`).
pub(super) fn resolve(
    kubeconfig: &mut Kubeconfig,
    options: &KubeConfigOptions,
    deadline: Option<Duration>,
) -> Result<(), Error> {
    let Some(context_name) = options.context.clone().or_else(|| kubeconfig.current_context.clone()) else {
        return Ok(());
    };
    let context = kubeconfig.contexts.iter().find(|c| c.name == context_name).and_then(|c| c.context.clone());
    let Some(user) = options.user.clone().or_else(|| context.as_ref().and_then(|c| c.user.clone())) else {
        return Ok(());
    };
    let cluster_name = options.cluster.clone().or_else(|| context.as_ref().map(|c| c.cluster.clone()));
    let cluster = cluster_name
        .and_then(|name| kubeconfig.clusters.iter().find(|c| c.name == name))
        .and_then(|c| c.cluster.clone());
    let Some(named) = kubeconfig.auth_infos.iter_mut().find(|a| a.name == user) else { return Ok(()) };
    let Some(auth) = named.auth_info.as_mut() else { return Ok(()) };
    let Some(exec) = auth.exec.clone() else { return Ok(()) };
    let info = exec_info(&exec, cluster.as_ref());
    let answer = run(&exec, &info, deadline)?;
    let status = &answer["status"];
    // Secrets are built the way a kubeconfig file gives them (kube keeps them wrapped).
    let given = |stanza: Value| serde_json::from_value::<kube::config::AuthInfo>(stanza).ok();
    if let Some(token) = status["token"].as_str() {
        auth.token = given(json!({"token": token})).and_then(|a| a.token);
    } else if let (Some(cert), Some(key)) = (status["clientCertificateData"].as_str(), status["clientKeyData"].as_str())
    {
        let b64 = base64::engine::general_purpose::STANDARD;
        auth.client_certificate_data = Some(b64.encode(cert));
        auth.client_key_data = given(json!({"client-key-data": b64.encode(key)})).and_then(|a| a.client_key_data);
    } else {
        return Err(plugin_error(&exec, "answered without a token or a client certificate"));
    }
    auth.exec = None;
    Ok(())
}

/// `KUBERNETES_EXEC_INFO`: the request the plugin reads (client-go's `ExecCredential` spec).
fn exec_info(exec: &ExecConfig, cluster: Option<&kube::config::Cluster>) -> String {
    let mut spec = json!({"interactive": interactive(exec)});
    if exec.provide_cluster_info {
        if let Some(c) = cluster {
            spec["cluster"] = json!({
                "server": c.server,
                "certificate-authority-data": c.certificate_authority_data,
                "insecure-skip-tls-verify": c.insecure_skip_tls_verify,
            });
        }
    }
    json!({"apiVersion": exec.api_version, "kind": "ExecCredential", "spec": spec}).to_string()
}

/// Whether the plugin may talk to the user (client-go: unless `interactiveMode: Never`, and
/// only with a terminal on stdin).
fn interactive(exec: &ExecConfig) -> bool {
    use std::io::IsTerminal;
    exec.interactive_mode != Some(ExecInteractiveMode::Never) && std::io::stdin().is_terminal()
}

fn run(exec: &ExecConfig, info: &str, deadline: Option<Duration>) -> Result<Value, Error> {
    let program = exec.command.clone().ok_or_else(|| plugin_error(exec, "has no command"))?;
    let mut command = Command::new(&program);
    command.args(exec.args.iter().flatten());
    for pair in exec.env.iter().flatten() {
        if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
            command.env(name, value);
        }
    }
    for name in exec.drop_env.iter().flatten() {
        command.env_remove(name);
    }
    command.env("KUBERNETES_EXEC_INFO", info);
    let talk = interactive(exec);
    command.stdin(if talk { Stdio::inherit() } else { Stdio::null() });
    command.stdout(Stdio::piped());
    command.stderr(if talk { Stdio::inherit() } else { Stdio::piped() });
    // A plugin is often a script whose work runs in its children (`sh -c 'aws eks get-token'`):
    // in a process group of its own, the deadline stops them all, not only the shell, which
    // would leave them holding our pipes and whatever else they inherited. An interactive
    // plugin stays in the terminal's foreground group, where it can read the user's answer.
    #[cfg(unix)]
    if !talk {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    let mut child = command.spawn().map_err(|e| {
        let hint = exec.install_hint.as_deref().map(|h| format!("; {h}")).unwrap_or_default();
        plugin_error(exec, &format!("could not be started: {e}{hint}"))
    })?;
    // Read both pipes on threads, so a plugin that writes much cannot block on a full pipe.
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let started = Instant::now();
    let status = loop {
        if let Some(status) =
            child.try_wait().map_err(|e| plugin_error(exec, &format!("could not be waited for: {e}")))?
        {
            break status;
        }
        if deadline.is_some_and(|d| started.elapsed() > d) {
            #[cfg(unix)]
            if !talk {
                kill_group(&child);
            }
            let _ = child.kill();
            let _ = child.wait();
            let after = deadline.unwrap_or_default().as_secs();
            return Err(plugin_error(exec, &format!("did not answer within {after}s and was stopped")));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    if !status.success() {
        let said = String::from_utf8_lossy(&err);
        let said = said.trim();
        let said = if said.is_empty() { String::new() } else { format!(": {}", first_chars(said, 600)) };
        return Err(plugin_error(exec, &format!("failed ({status}){said}")));
    }
    serde_json::from_slice(&out)
        .map_err(|e| plugin_error(exec, &format!("did not answer with an ExecCredential as JSON ({e})")))
}

/// Kills the plugin's process group (it leads one: see `run`).
#[cfg(unix)]
fn kill_group(child: &std::process::Child) {
    let group = i32::try_from(child.id()).ok().and_then(rustix::process::Pid::from_raw);
    if let Some(group) = group {
        // A group that is gone already fails with ESRCH: nothing is left to stop.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn first_chars(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn plugin_error(exec: &ExecConfig, what: &str) -> Error {
    let command = exec.command.as_deref().unwrap_or("(none)");
    Error::Kubeconfig {
        message: format!("the kubeconfig's credential plugin `{command}` {what}"),
        help: "run the plugin by hand to see what it needs (a login, a profile, network access); \
               --request-timeout bounds how long it may take; or replay a file with --snapshot"
            .to_owned(),
    }
}
