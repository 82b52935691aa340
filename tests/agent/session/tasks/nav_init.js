// Set before any script of every page the task opens (task-file "init_script").
window.__foveaInit = 'from-task-file';
