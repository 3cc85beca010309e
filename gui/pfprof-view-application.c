/* SPDX-License-Identifier: MIT */
/* pfprof-view-application.c: the application: its actions and
 * accelerators, the desktop's dark preference, and a window per open. */
#include "pfprof-config.h"

#include "pfprof-view-application.h"

#include "pfprof-temp-file.h"
#include "pfprof-view-preload.h"
#include "pfprof-view-window.h"

/* ---- Dark preference --------------------------------------------------- */

/* GTK 4.8 without libadwaita does not read the desktop's colour scheme:
 * ask the settings portal (org.freedesktop.appearance color-scheme, 1 =
 * prefer dark) and follow its changes. Without a session bus nothing
 * happens and the GTK theme decides. */
static void
apply_color_scheme (GVariant *value)
{
  guint32 scheme = 0;

  while (value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    {
      GVariant *inner = g_variant_get_variant (value);

      g_variant_unref (value);
      value = inner;
    }
  if (value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    scheme = g_variant_get_uint32 (value);
  if (value != NULL)
    g_variant_unref (value);
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", scheme == 1, NULL);
}

static void
on_portal_signal (GDBusConnection *c, const char *sender, const char *path, const char *iface,
                  const char *signal, GVariant *params, gpointer data)
{
  const char *ns, *key;
  GVariant *value;

  g_variant_get (params, "(&s&sv)", &ns, &key, &value);
  if (g_str_equal (ns, "org.freedesktop.appearance") && g_str_equal (key, "color-scheme"))
    apply_color_scheme (value);
  else
    g_variant_unref (value);
}

static void
on_portal_read (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, NULL);
  GVariant *value = NULL;

  if (reply == NULL)
    return;
  g_variant_get (reply, "(v)", &value);
  apply_color_scheme (value);
}

static void
follow_color_scheme (void)
{
  GDBusConnection *bus;

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    return; /* no autolaunch of a bus just for this */
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  if (bus == NULL)
    return;
  g_dbus_connection_call (bus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                          "org.freedesktop.portal.Settings", "Read",
                          g_variant_new ("(ss)", "org.freedesktop.appearance", "color-scheme"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, 2000, NULL, on_portal_read, NULL);
  g_dbus_connection_signal_subscribe (bus, "org.freedesktop.portal.Desktop", "org.freedesktop.portal.Settings",
                                      "SettingChanged", "/org/freedesktop/portal/desktop", NULL,
                                      G_DBUS_SIGNAL_FLAGS_NONE, on_portal_signal, NULL, NULL);
  g_object_unref (bus);
}

/* ---- Application ------------------------------------------------------- */

/* The traces named on the command line: their load began before the
 * display was opened, and the first window takes it over. */
typedef struct
{
  GFile **files;
  int n_files;
  PfprofViewPreload *preload; /* NULL once taken or dropped */
} CommandLine;

static void
command_line_free (gpointer data)
{
  CommandLine *c = data;

  for (int i = 0; i < c->n_files; i++)
    g_object_unref (c->files[i]);
  g_free (c->files);
  if (c->preload != NULL)
    pfprof_view_preload_drop (c->preload, FALSE);
  g_free (c);
}

static CommandLine *
command_line (GApplication *app)
{
  return g_object_get_data (G_OBJECT (app), "pfprof-command-line");
}

/* A window per activation or open; its shortcuts window,
 * gtk/help-overlay.ui in the resource, is added by GtkApplication. */
static void
on_activate (GApplication *app, gpointer data)
{
  CommandLine *c = command_line (app);
  PfprofViewWindow *win;

  /* The command line's traces are an open, not an activation (which is
   * the app started with nothing to open). */
  if (c != NULL && c->n_files > 0)
    {
      g_signal_stop_emission_by_name (app, "activate");
      g_application_open (app, c->files, c->n_files, "");
      return;
    }
  win = pfprof_view_window_new (GTK_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (win));
}

static void
on_open (GApplication *app, GFile **files, int n_files, const char *hint, gpointer data)
{
  CommandLine *c = command_line (app);
  PfprofViewWindow *win = pfprof_view_window_new (GTK_APPLICATION (app));

  if (c != NULL && c->preload != NULL && pfprof_view_preload_has_files (c->preload, files, n_files))
    {
      g_autofree char *first = g_file_get_path (files[0]);

      pfprof_view_window_open_preloaded (win, g_steal_pointer (&c->preload), first);
      gtk_window_present (GTK_WINDOW (win));
      return;
    }
  gtk_window_present (GTK_WINDOW (win));
  pfprof_view_window_open (win, files, n_files);
}

/* After the options, before the display is opened: starts loading the
 * traces named, then opens the display (one clear line and 2 when there
 * is none, rather than GTK's own failure and 1, pfprof's "a finding
 * fired"). */
static int
on_handle_local_options (GApplication *app, GVariantDict *options, gpointer data)
{
  g_autofree const char **args = NULL;
  CommandLine *c = g_new0 (CommandLine, 1);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  if (g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &args))
    {
      c->n_files = (int) g_strv_length ((char **) args);
      c->files = g_new0 (GFile *, c->n_files + 1);
      for (int i = 0; i < c->n_files; i++)
        {
          c->files[i] = g_file_new_for_commandline_arg (args[i]);
          g_ptr_array_add (paths, g_file_get_path (c->files[i]));
        }
    }
  g_object_set_data_full (G_OBJECT (app), "pfprof-command-line", c, command_line_free);
  g_ptr_array_add (paths, NULL);
  /* Only local files load: the window says what is wrong with the rest. */
  if (c->n_files > 0 && g_strv_length ((char **) paths->pdata) == (guint) c->n_files)
    c->preload = pfprof_view_preload_new ((const char *const *) paths->pdata);
  if (!gtk_init_check ())
    {
      const char *display = g_getenv ("WAYLAND_DISPLAY") ? g_getenv ("WAYLAND_DISPLAY") : g_getenv ("DISPLAY");

      if (c->preload != NULL)
        pfprof_view_preload_drop (g_steal_pointer (&c->preload), TRUE);
      g_printerr ("%s: cannot open the display%s%s%s\n", g_get_prgname (), display ? " '" : "",
                  display ? display : " (neither DISPLAY nor WAYLAND_DISPLAY is set)", display ? "'" : "");
      return 2;
    }
  return -1;
}

static void
action_quit (GSimpleAction *a, GVariant *p, gpointer app)
{
  g_application_quit (app);
}

static void
on_startup (GApplication *app, gpointer data)
{
  static const GActionEntry entries[] = { { "quit", action_quit, NULL, NULL, NULL, { 0 } } };
  static const char *quit[] = { "<Primary>q", NULL };
  static const char *open[] = { "<Primary>o", NULL };
  static const char *open_tab[] = { "<Primary>t", NULL };
  static const char *close_tab[] = { "<Primary>w", NULL };
  static const char *help[] = { "<Primary>question", NULL };
  static const char *next[] = { "<Primary>bracketright", NULL };
  static const char *prev[] = { "<Primary>bracketleft", NULL };
  static const char *search[] = { "<Primary>f", NULL };
  static const char *fit[] = { "<Primary>0", NULL };

  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-tab", open_tab);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.close-tab", close_tab);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.show-help-overlay", help);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.next-occurrence", next);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.previous-occurrence", prev);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.search", search);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.fit-all", fit);
  follow_color_scheme ();
}

/* With the cairo renderer asked for (GSK_RENDERER=cairo), GL draws
 * nothing, yet on opening an X11 display GDK sets it up to choose the
 * windows' visual: 0.3 s and more where GL is software (Mesa's llvmpipe,
 * as under Xvfb or over SSH), before the first frame. GDK_DEBUG=
 * gl-disable skips that and nothing drawn changes. A GDK_DEBUG of the
 * user's is left as it is. Before any thread runs: setenv() is not
 * thread-safe. */
static void
skip_unused_gl (void)
{
  if (g_strcmp0 (g_getenv ("GSK_RENDERER"), "cairo") == 0 && g_getenv ("GDK_DEBUG") == NULL)
    g_setenv ("GDK_DEBUG", "gl-disable", TRUE);
}

GtkApplication *
pfprof_view_application_new (void)
{
  /* The traces named: G_OPTION_REMAINING, read by "handle-local-options". */
  static const GOptionEntry remaining[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, NULL },
    { NULL },
  };
  GtkApplication *app;

  skip_unused_gl ();
  /* Ctrl-C while a WAL trace loads removes the reader's copy. */
  pfprof_temp_file_install_handlers ();
  g_set_prgname ("pfprof-view");
  g_set_application_name ("pfprof");
  /* NON_UNIQUE: each invocation is its own process, no session bus
   * needed (CI, SSH sessions). */
  app = gtk_application_new ("org.pfprof.View", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_application_set_option_context_parameter_string (G_APPLICATION (app), "[TRACE...]");
  g_application_set_option_context_summary (G_APPLICATION (app), "Timeline of pfprof traces with the findings marked.");
  g_application_add_main_option_entries (G_APPLICATION (app), remaining);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (on_handle_local_options), NULL);
  g_signal_connect (app, "startup", G_CALLBACK (on_startup), NULL);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), NULL);
  g_signal_connect (app, "open", G_CALLBACK (on_open), NULL);
  return app;
}
